/// Plots of a marker verification: recall against marker size and corner RMSE against tilt, one series
/// per detector.
public struct VerificationReport {
    public let summary: MarkerVerificationSummary

    public init(summary: MarkerVerificationSummary) { self.summary = summary }

    public func document() -> SheetDocument {
        let page = PageSize(name: "A4", width: .mm(210), height: .mm(297))
        let summary = summary
        return SheetDocument(title: "MarkerKit detection verification", pages: [
            SheetDocument.Page(size: page) { canvas in
                canvas.text("Detection verification: " + summary.heading,
                            x: 15, baseline: 18, size: 4.5, maxWidth: 180, bold: true)
                Self.bars(canvas, Rect(x: 25, y: 35, width: 165, height: 95), breakdown: summary.bySize, title: "Recall (%) by marker side (px)",
                          value: { 100 * $0.recall }, top: 100)
                let worst = summary.byTilt.buckets.flatMap { $0.figures.compactMap(\.cornerRMSE) }.max() ?? 1
                Self.bars(canvas, Rect(x: 25, y: 160, width: 165, height: 95), breakdown: summary.byTilt, title: "Corner RMSE (px) by tilt (degrees)",
                          value: { $0.cornerRMSE ?? 0 }, top: worst * 1.1)
                for (i, figures) in summary.overall.enumerated() {
                    canvas.fill([Rect(x: 25 + Double(i) * 55, y: 272, width: 4, height: 4)], color: Color.palette(i))
                    canvas.text(figures.detector, x: 31 + Double(i) * 55, baseline: 275.5, size: 3)
                }
                canvas.text(MarkerKitVersion.generator, x: 195, baseline: 290, size: 2.4, align: .right, color: .gray(0.4))
            },
        ])
    }

    static func bars(_ canvas: Canvas, _ r: Rect, breakdown: Breakdown, title: String,
                     value: (DetectorFigures) -> Double, top: Double) {
        canvas.stroke(r, lineWidth: 0.2, color: .gray(0.3))
        canvas.text(title, x: r.x, baseline: r.y - 3, size: 3.4, bold: true)
        let groups = breakdown.buckets.count
        guard groups > 0, top > 0 else { return }
        let slot = r.width / Double(groups)
        for (g, bucket) in breakdown.buckets.enumerated() {
            let n = bucket.figures.count
            let bar = slot * 0.8 / Double(max(n, 1))
            for (i, figures) in bucket.figures.enumerated() {
                let h = min(1, value(figures) / top) * r.height
                canvas.fill([Rect(x: r.x + Double(g) * slot + slot * 0.1 + Double(i) * bar, y: r.maxY - h, width: bar * 0.9, height: h)],
                            color: Color.palette(i))
            }
            canvas.text("\(bucket.label) (n=\(bucket.figures.first?.markers ?? 0))", x: r.x + (Double(g) + 0.5) * slot, baseline: r.maxY + 4.5,
                        size: 2.6, align: .center, maxWidth: slot)
        }
        for k in 0...4 {
            let v = top * Double(k) / 4
            canvas.text(top >= 10 ? "\(Int(v.rounded()))" : String(format: "%.2f", v), x: r.x - 1.5,
                        baseline: r.maxY - Double(k) / 4 * r.height + 1, size: 2.4, align: .right)
        }
    }
}

import CVBridge
import Foundation

/// The calibration report: parameters with standard deviations, per-view errors, the residual vectors,
/// where the corners fell in the image, and the lens's distortion field. Two A4 pages drawn with Cairo.
public struct CalibrationReport {
    public let result: Calibrator.Result

    public init(result: Calibrator.Result) { self.result = result }

    /// Reprojection residuals (projected - observed) per used view, in pixels.
    public func residuals() throws -> [[(dx: Double, dy: Double, x: Double, y: Double)]] {
        let c = result.calibration
        return try result.used.map { view in
            // The board points this view saw (all of a chessboard, part of a ChArUco board).
            let object = view.cornerIDs.flatMap { [result.boardPoints[$0].0, result.boardPoints[$0].1, result.boardPoints[$0].2] }
            var projected = [Double](repeating: 0, count: 2 * view.cornerIDs.count)
            try Bridge.check(cvb_project_model(object, Int32(view.cornerIDs.count), view.rvec, view.tvec, c.cameraMatrix, c.distortion,
                                               Int32(c.distortion.count), c.bridgeModel, &projected))
            return view.corners.enumerated().map { i, p in (projected[2 * i] - p.x, projected[2 * i + 1] - p.y, p.x, p.y) }
        }
    }

    /// Where an ideal pixel lands through the lens, on a grid over the image.
    public func distortionField(columns: Int = 16, rows: Int = 12) throws -> [(x: Double, y: Double, dx: Double, dy: Double)] {
        let c = result.calibration
        var ideal: [(Double, Double)] = []
        for r in 0...rows {
            for k in 0...columns {
                ideal.append((Double(k) / Double(columns) * Double(c.imageWidth - 1), Double(r) / Double(rows) * Double(c.imageHeight - 1)))
            }
        }
        let object = ideal.flatMap { [($0.0 - c.cx) / c.fx, ($0.1 - c.cy) / c.fy, 1.0] }
        var distorted = [Double](repeating: 0, count: 2 * ideal.count)
        try Bridge.check(cvb_project_model(object, Int32(ideal.count), [0, 0, 0], [0, 0, 0], c.cameraMatrix, c.distortion,
                                           Int32(c.distortion.count), c.bridgeModel, &distorted))
        return ideal.enumerated().map { i, p in (p.0, p.1, distorted[2 * i] - p.0, distorted[2 * i + 1] - p.1) }
    }

    public func document() throws -> SheetDocument {
        let page = PageSize(name: "A4", width: .mm(210), height: .mm(297))
        let residuals = try residuals()
        let field = try distortionField()
        let c = result.calibration
        let views = result.views
        let used = result.used
        // The projection uncertainty page, when the calibration carries its covariance.
        let uncertainty = try c.projectionCovariance.map { _ in try UncertaintyPlot(uncertainty: ProjectionUncertainty(c), range: nil).drawing() }
        let pages = uncertainty == nil ? 2 : 3
        var document = SheetDocument(title: "MarkerKit calibration report: \(c.name)", pages: [
            SheetDocument.Page(size: page) { canvas in
                Self.heading(canvas, "Calibration of \(c.name)", page: 1, of: pages)
                var y = 30.0
                // Long lines (the verdict and its advice) wrapped, the verdict in bold.
                for line in CalibrationSummary.lines(for: c) {
                    let text = line.trimmingCharacters(in: .whitespaces), verdict = text.hasPrefix("verdict:")
                    for (k, part) in Self.wrap(text, width: 180, size: 3.2, bold: verdict, canvas: canvas).enumerated() {
                        canvas.text(part, x: k == 0 ? 15 : 19, baseline: y, size: 3.2, maxWidth: 180, bold: verdict)
                        y += k == 0 ? 5 : 4.5
                    }
                }
                let skipped = views.filter { $0.status != .used }
                y += 3
                canvas.text("Images: \(used.count) used, \(skipped.count) not used", x: 15, baseline: y, size: 3.2, bold: true)
                for view in skipped.prefix(8) {
                    y += 4.5
                    canvas.text("\(view.file): \(view.reason)", x: 18, baseline: y, size: 2.8, maxWidth: 175, color: .gray(0.3))
                }
                if skipped.count > 8 { y += 4.5; canvas.text("... and \(skipped.count - 8) more", x: 18, baseline: y, size: 2.8) }
                // Which corners each view gave (a ChArUco view may show any part of the board).
                let total = result.boardPoints.count
                if used.contains(where: { $0.cornerIDs.count < total }) {
                    y += 7
                    canvas.text("Corners each view contributed (of \(total), by corner ID)", x: 15, baseline: y, size: 3.2, bold: true)
                    for view in used.prefix(12) {
                        y += 4.5
                        canvas.text("\((view.file as NSString).lastPathComponent): \(view.cornerIDs.count) corners, IDs \(Self.ranges(view.cornerIDs))",
                                    x: 18, baseline: y, size: 2.6, maxWidth: 175, color: .gray(0.3))
                    }
                    if used.count > 12 { y += 4.5; canvas.text("... and \(used.count - 12) more views", x: 18, baseline: y, size: 2.6) }
                }
                let top = max(y + 12, 150)
                Self.perViewBars(canvas, Rect(x: 25, y: top, width: 170, height: max(50, min(110, 275 - top))), views: used,
                                 rms: c.provenance?.rms ?? 0)
            },
            SheetDocument.Page(size: page) { canvas in
                Self.heading(canvas, "Residuals, coverage and distortion of \(c.name)", page: 2, of: pages)
                Self.residualScatter(canvas, Rect(x: 25, y: 30, width: 70, height: 70), residuals: residuals)
                Self.coverage(canvas, Rect(x: 110, y: 30, width: 85, height: 85 * Double(c.imageHeight) / Double(max(c.imageWidth, 1))),
                              residuals: residuals, width: c.imageWidth, height: c.imageHeight)
                Self.distortion(canvas, Rect(x: 25, y: 135, width: 170, height: 170 * Double(c.imageHeight) / Double(max(c.imageWidth, 1))),
                                field: field, width: c.imageWidth, height: c.imageHeight)
            },
        ])
        if let uncertainty {
            document.pages.append(SheetDocument.Page(size: page) { canvas in
                Self.heading(canvas, "Projection uncertainty of \(c.name)", page: 3, of: pages)
                uncertainty(canvas, Rect(x: 15, y: 30, width: 180, height: 0))
            })
        }
        return document
    }

    /// `text` broken at spaces into lines no wider than `width` mm (the first line) or `width` - 4 mm.
    static func wrap(_ text: String, width: Double, size: Double, bold: Bool, canvas: Canvas) -> [String] {
        var lines: [String] = [], current = ""
        for word in text.split(separator: " ", omittingEmptySubsequences: false) {
            let trial = current.isEmpty ? String(word) : current + " " + word
            if !current.isEmpty, canvas.textWidth(trial, size: size, bold: bold) > width - (lines.isEmpty ? 0 : 4) {
                lines.append(current)
                current = String(word)
            } else {
                current = trial
            }
        }
        return lines + [current]
    }

    /// IDs as runs: "0-5, 7, 9-12".
    static func ranges(_ ids: [Int]) -> String {
        var runs: [(first: Int, last: Int)] = []
        for id in ids.sorted() {
            if let run = runs.last, id == run.last + 1 { runs[runs.count - 1].last = id } else { runs.append((id, id)) }
        }
        return runs.map { $0.first == $0.last ? "\($0.first)" : "\($0.first)-\($0.last)" }.joined(separator: ", ")
    }

    static func heading(_ canvas: Canvas, _ title: String, page: Int, of pages: Int) {
        canvas.text(title, x: 15, baseline: 18, size: 5, maxWidth: 180, bold: true)
        canvas.text("\(MarkerKitVersion.generator) · page \(page) of \(pages)", x: 195, baseline: 290, size: 2.4, align: .right, color: .gray(0.4))
    }

    static func frame(_ canvas: Canvas, _ r: Rect, title: String) {
        canvas.stroke(r, lineWidth: 0.2, color: .gray(0.3))
        canvas.text(title, x: r.x, baseline: r.y - 2.5, size: 3.2, maxWidth: r.width, bold: true)
    }

    static func perViewBars(_ canvas: Canvas, _ r: Rect, views: [Calibrator.View], rms: Double) {
        frame(canvas, r, title: "Reprojection error per view (RMS, px); dashed: overall RMS")
        let errors = views.map { $0.rms ?? 0 }
        let top = max(errors.max() ?? 1, rms) * 1.15
        guard top > 0, !errors.isEmpty else { return }
        let slot = r.width / Double(errors.count)
        for (i, e) in errors.enumerated() {
            let h = e / top * r.height
            canvas.fill([Rect(x: r.x + Double(i) * slot + slot * 0.15, y: r.maxY - h, width: slot * 0.7, height: h)], color: Color.palette(i))
            let name = (views[i].file as NSString).lastPathComponent
            canvas.text(name, x: r.x + (Double(i) + 0.5) * slot, baseline: r.maxY + 4, size: min(2.4, slot * 0.35), align: .center, maxWidth: slot)
        }
        let y = r.maxY - rms / top * r.height
        canvas.stroke(Rect(x: r.x, y: y, width: r.width, height: 0), lineWidth: 0.25, color: .black, dash: [1.5, 1])
        for v in axisTicks(upTo: top) {
            canvas.text(v.label, x: r.x - 1.5, baseline: r.maxY - v.value / top * r.height + 1, size: 2.4, align: .right)
        }
    }

    /// Round ticks from 0 to `top` (a step of 1, 2 or 5 times a power of ten, 3 to 6 ticks past 0), each
    /// written with the decimals its step needs: a chart to 0.023 px reads 0, 0.005, 0.010, ..., not
    /// "0.02, 0.02, 0.01, 0.01, 0.00".
    static func axisTicks(upTo top: Double) -> [(value: Double, label: String)] {
        guard top > 0, top.isFinite else { return [] }
        let step = roundNumber(top / 5, up: true)
        let decimals = max(0, Int(-log10(step).rounded(.down)))
        return (0...Int((top / step).rounded(.down))).map { k in
            let value = Double(k) * step
            return (value, String(format: "%.\(decimals)f", value))
        }
    }

    /// The nearest of 1, 2 and 5 times a power of ten at or above `v` (`up`), or at or below it.
    static func roundNumber(_ v: Double, up: Bool) -> Double {
        let decade = pow(10, log10(v).rounded(.down))
        let choices = [1.0, 2, 5, 10].map { $0 * decade }
        return up ? choices.first { $0 >= v * (1 - 1e-9) }! : choices.last { $0 <= v * (1 + 1e-9) }!
    }

    /// How much the distortion field's arrows are enlarged: the largest arrow about 0.9 of the spacing
    /// between arrows (`spacing` image pixels), rounded down to 1, 2 or 5 times a power of ten. Capped
    /// at 1 before, a 4.6 px field on a 640 px image was drawn at its size: invisible.
    static func arrowScale(largest: Double, spacing: Double) -> Double {
        guard largest > 0, largest.isFinite, spacing > 0 else { return 1 }
        return roundNumber(0.9 * spacing / largest, up: false)
    }

    static func residualScatter(_ canvas: Canvas, _ r: Rect, residuals: [[(dx: Double, dy: Double, x: Double, y: Double)]]) {
        let all = residuals.flatMap { $0 }
        let extent = max(0.1, (all.map { max(abs($0.dx), abs($0.dy)) }.max() ?? 1) * 1.1)
        frame(canvas, r, title: String(format: "Residual vectors (px), ±%.2f", extent))
        let cx = r.x + r.width / 2, cy = r.y + r.height / 2
        canvas.line(from: (r.x, cy), to: (r.maxX, cy), lineWidth: 0.1, color: .gray(0.6))
        canvas.line(from: (cx, r.y), to: (cx, r.maxY), lineWidth: 0.1, color: .gray(0.6))
        for (v, points) in residuals.enumerated() {
            for p in points {
                canvas.circle(center: (cx + p.dx / extent * r.width / 2, cy + p.dy / extent * r.height / 2), radius: 0.35, color: Color.palette(v))
            }
        }
        let rms = (all.map { $0.dx * $0.dx + $0.dy * $0.dy }.reduce(0, +) / Double(max(all.count, 1))).squareRoot()
        canvas.circle(center: (cx, cy), radius: rms / extent * r.width / 2, color: .black, filled: false, lineWidth: 0.2)
        canvas.text(String(format: "circle: RMS %.3f px", rms), x: r.x, baseline: r.maxY + 4, size: 2.6)
    }

    static func coverage(_ canvas: Canvas, _ r: Rect, residuals: [[(dx: Double, dy: Double, x: Double, y: Double)]], width: Int, height: Int) {
        frame(canvas, r, title: "Coverage: corners in the image, one colour per view")
        let sx = r.width / Double(max(width, 1)), sy = r.height / Double(max(height, 1))
        for (v, points) in residuals.enumerated() {
            for p in points { canvas.circle(center: (r.x + p.x * sx, r.y + p.y * sy), radius: 0.4, color: Color.palette(v)) }
        }
        // Coverage by thirds of the image: the share of cells any corner fell in.
        var cells = Set<Int>()
        for points in residuals { for p in points { cells.insert(min(2, Int(3 * p.x / Double(width))) + 3 * min(2, Int(3 * p.y / Double(height)))) } }
        canvas.text("\(width)x\(height) px; corners in \(cells.count) of 9 image thirds", x: r.x, baseline: r.maxY + 4, size: 2.6)
    }

    static func distortion(_ canvas: Canvas, _ r: Rect, field: [(x: Double, y: Double, dx: Double, dy: Double)], width: Int, height: Int) {
        let largest = field.map { ($0.dx * $0.dx + $0.dy * $0.dy).squareRoot() }.max() ?? 0
        let spacing = r.width / 16
        let scale = arrowScale(largest: largest, spacing: spacing * Double(width) / r.width)
        frame(canvas, r, title: String(format: "Distortion field: ideal pixel → where the lens puts it (largest %.1f px, arrows ×%g)", largest, scale))
        let sx = r.width / Double(max(width, 1)), sy = r.height / Double(max(height, 1))
        canvas.clipped(to: r) {
            for p in field {
                let start = (r.x + p.x * sx, r.y + p.y * sy)
                let end = (start.0 + p.dx * scale * sx, start.1 + p.dy * scale * sy)
                canvas.line(from: start, to: end, lineWidth: 0.25, color: Color(0.8, 0.1, 0.1))
                canvas.circle(center: start, radius: 0.3, color: .gray(0.2))
            }
        }
    }
}

import Foundation

/// A value over an image drawn as colour (log scale) with contour lines at round levels, a marked
/// point, a legend and lines of text below: the uncertainty map and the projection difference.
struct ImageMapPlot {
    let width: Int, height: Int
    /// Cells across and down; `values` on the (columns + 1) x (rows + 1) cell corners, row by row, the
    /// first and last at the image's edges.
    let columns: Int, rows: Int
    let values: [Double]
    let mark: (Double, Double)?
    let lines: [String]

    func draw(_ canvas: Canvas, _ frame: Rect) {
        let w = Double(width), h = Double(height)
        let top = values.max() ?? 1, bottom = values.min() ?? 0
        let levels = UncertaintyPlot.levels(from: bottom, to: top)
        let r = Rect(x: frame.x, y: frame.y, width: frame.width, height: frame.width * h / w)
        func at(_ i: Double, _ j: Double) -> (Double, Double) { (r.x + r.width * i / Double(columns), r.y + r.height * j / Double(rows)) }
        func value(_ i: Int, _ j: Int) -> Double { values[j * (columns + 1) + i] }
        // Cells coloured by the mean of their corners.
        for j in 0..<rows {
            for i in 0..<columns {
                let v = (value(i, j) + value(i + 1, j) + value(i, j + 1) + value(i + 1, j + 1)) / 4
                let (x0, y0) = at(Double(i), Double(j)), (x1, y1) = at(Double(i + 1), Double(j + 1))
                canvas.fill([Rect(x: x0, y: y0, width: x1 - x0 + 0.05, height: y1 - y0 + 0.05)], color: UncertaintyPlot.color(v, low: bottom, top: top))
            }
        }
        // Contours by marching squares: each cell edge the level crosses gives a point, two points a segment.
        for level in levels {
            var labelled = false
            for j in 0..<rows {
                for i in 0..<columns {
                    let corners = [(i, j), (i + 1, j), (i + 1, j + 1), (i, j + 1)]
                    var crossings: [(Double, Double)] = []
                    for k in 0..<4 {
                        let (ai, aj) = corners[k], (bi, bj) = corners[(k + 1) % 4]
                        let a = value(ai, aj), b = value(bi, bj)
                        guard (a < level) != (b < level) else { continue }
                        let t = (level - a) / (b - a)
                        crossings.append(at(Double(ai) + t * Double(bi - ai), Double(aj) + t * Double(bj - aj)))
                    }
                    for s in stride(from: 0, to: crossings.count - 1, by: 2) {
                        canvas.line(from: crossings[s], to: crossings[s + 1], lineWidth: 0.25, color: .gray(0.1))
                    }
                    if !labelled, crossings.count == 2, i % 7 == 3 {
                        canvas.text(UncertaintyPlot.format(level), x: crossings[0].0 + 0.6, baseline: crossings[0].1 - 0.6, size: 2.2, color: .gray(0.05))
                        labelled = true
                    }
                }
            }
        }
        canvas.stroke(r, lineWidth: 0.2, color: .gray(0.3))
        if let (mx, my) = mark {
            canvas.circle(center: (r.x + r.width * mx / max(w - 1, 1), r.y + r.height * my / max(h - 1, 1)), radius: 1.2, color: .black,
                          filled: false, lineWidth: 0.35)
        }
        // Legend: the colour scale, then the figures.
        let legend = Rect(x: r.x, y: r.maxY + 6, width: r.width * 0.6, height: 4)
        for k in 0..<60 {
            canvas.fill([Rect(x: legend.x + legend.width * Double(k) / 60, y: legend.y, width: legend.width / 60 + 0.05, height: legend.height)],
                        color: UncertaintyPlot.color(bottom * pow(top / max(bottom, 1e-12), (Double(k) + 0.5) / 60), low: bottom, top: top))
        }
        canvas.stroke(legend, lineWidth: 0.15, color: .gray(0.3))
        canvas.text(UncertaintyPlot.format(bottom) + " px (log scale)", x: legend.x, baseline: legend.maxY + 4, size: 2.6)
        canvas.text(UncertaintyPlot.format(top) + " px", x: legend.maxX, baseline: legend.maxY + 4, size: 2.6, align: .right)
        var y = legend.maxY + 11
        for line in lines + ["Contours at " + levels.map(UncertaintyPlot.format).joined(separator: ", ") + " px."] {
            canvas.text(line, x: r.x, baseline: y, size: 2.8, maxWidth: r.width)
            y += 4.5
        }
    }
}

import Foundation

/// The projection uncertainty map drawn over the image: sigma as colour on a fine grid, contour lines at
/// round levels, the worst point marked, median and worst written under it. A page of its own
/// (`calibrations uncertainty --plot`) and a page of the calibration report.
public struct UncertaintyPlot {
    public let uncertainty: ProjectionUncertainty
    /// mm along each ray, nil at infinity.
    public let range: Double?
    /// Cells across the image (rows follow its aspect).
    public var columns = 64

    public init(uncertainty: ProjectionUncertainty, range: Double?) {
        self.uncertainty = uncertainty
        self.range = range
    }

    public func document() throws -> SheetDocument {
        let page = PageSize(name: "A4", width: .mm(210), height: .mm(297))
        let name = uncertainty.calibration.name
        let draw = try drawing()
        return SheetDocument(title: "MarkerKit projection uncertainty: \(name)", pages: [
            SheetDocument.Page(size: page) { canvas in
                canvas.text("Projection uncertainty of \(name)", x: 15, baseline: 18, size: 5, maxWidth: 180, bold: true)
                draw(canvas, Rect(x: 15, y: 30, width: 180, height: 0))
                canvas.text(MarkerKitVersion.generator, x: 195, baseline: 290, size: 2.4, align: .right, color: .gray(0.4))
            },
        ])
    }

    /// Computes the map and returns what draws it into a rectangle of the given width (its height
    /// follows the image's aspect; the legend and figures go below it).
    public func drawing() throws -> (Canvas, Rect) -> Void {
        let c = uncertainty.calibration
        let rows = max(2, Int((Double(columns) * Double(c.imageHeight) / Double(c.imageWidth)).rounded()))
        let map = try UncertaintyMap(uncertainty, columns: columns + 1, rows: rows + 1, range: range)
        // The figures are the summary grid's, as every other page and command prints them; the fine grid colours the map.
        let summary = try UncertaintyMap.summary(uncertainty, range: range)
        let worst = summary.worst
        return ImageMapPlot(width: c.imageWidth, height: c.imageHeight, columns: columns, rows: rows, values: map.points.map(\.sigma),
                            mark: (worst.x, worst.y), lines: [
            String(format: "Worst-direction standard deviation of the projection of points %@: median %.3f px, worst %.3f px at (%.0f, %.0f) (circled), over %dx%d points.",
                   map.rangeText, summary.median, worst.sigma, worst.x, worst.y, summary.grid.columns, summary.grid.rows),
            String(format: "From the calibration's %d views and its corner noise %.3f px, the views' pose errors included (mrcal's mean of frames).",
                   map.views, map.noise),
            "Hold the board where the values are large.",
        ]).draw
    }
}

extension UncertaintyPlot {
    /// Round contour levels (1, 2, 5 times powers of ten) between the map's least and largest values.
    static func levels(from low: Double, to high: Double) -> [Double] {
        guard high > 0, high > low else { return [] }
        var levels: [Double] = []
        var decade = pow(10, (log10(max(low, high / 1000))).rounded(.down))
        while decade <= high {
            for m in [1.0, 2.0, 5.0] where m * decade > low && m * decade < high { levels.append(m * decade) }
            decade *= 10
        }
        return levels.count > 8 ? stride(from: 0, to: levels.count, by: 2).map { levels[$0] } : levels
    }

    static func format(_ v: Double) -> String { v >= 1 ? String(format: "%.0f", v) : v >= 0.1 ? String(format: "%.1f", v) : String(format: "%.2g", v) }

    /// White through yellow and orange to dark red as sigma goes from `low` to `top`, on a log scale.
    static func color(_ v: Double, low: Double, top: Double) -> Color {
        let floor = max(low, top * 1e-6, 1e-12)
        let t = top > floor ? max(0, min(1, log(max(v, floor) / floor) / log(top / floor))) : 0
        let stops: [(Double, Color)] = [(0, Color(1, 1, 0.95)), (0.33, Color(1, 0.9, 0.4)), (0.66, Color(0.95, 0.45, 0.15)), (1, Color(0.5, 0.05, 0.05))]
        for k in 1..<stops.count where t <= stops[k].0 {
            let (t0, a) = stops[k - 1], (t1, b) = stops[k]
            let f = (t - t0) / (t1 - t0)
            return Color(a.r + (b.r - a.r) * f, a.g + (b.g - a.g) * f, a.b + (b.b - a.b) * f)
        }
        return stops.last!.1
    }
}

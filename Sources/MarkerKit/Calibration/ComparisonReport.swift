import Foundation

/// `calibrations compare` as JSON and as a plot: the projection difference between two calibrations of
/// one camera over its image (JSON: first, second, range, units, weighted, rotation_degrees,
/// translation, median, worst, grid, points).
public struct ComparisonReport: Encodable, Sendable {
    public let first: String
    public let second: String
    /// mm, or "infinity".
    public let range: Double?
    public var units = "mm"
    public let weighted: Bool
    public let rotationDegrees: Double
    public let translation: [Double]?
    public let median: Double
    public let worst: ProjectionDifference.Point
    public let grid: UncertaintyMap.Grid
    public let points: [ProjectionDifference.Point]
    let width: Int, height: Int

    /// Points across the image a comparison may be made on.
    public static let columnCounts = 2...400

    public init(_ difference: ProjectionDifference, columns: Int = 60, range: Double?) throws {
        guard Self.columnCounts.contains(columns) else { throw MarkerKitError.invalidArgument("the grid is 2-400 points across, not \(columns)") }
        let result = try difference.compute(columns: columns, range: range)
        first = difference.first.name
        second = difference.second.name
        self.range = range
        weighted = result.weighted
        rotationDegrees = result.rotationDegrees
        translation = range == nil ? nil : result.translation
        median = result.median
        worst = result.worst
        grid = UncertaintyMap.Grid(columns: result.columns, rows: result.rows)
        points = result.points
        (width, height) = (difference.first.imageWidth, difference.first.imageHeight)
    }

    enum CodingKeys: String, CodingKey { case first, second, range, units, weighted, rotationDegrees, translation, median, worst, grid, points }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(first, forKey: .first)
        try c.encode(second, forKey: .second)
        if let range { try c.encode(range, forKey: .range) } else { try c.encode("infinity", forKey: .range) }
        try c.encode(units, forKey: .units)
        try c.encode(weighted, forKey: .weighted)
        try c.encode(rotationDegrees, forKey: .rotationDegrees)
        try c.encodeIfPresent(translation, forKey: .translation)
        try c.encode(median, forKey: .median)
        try c.encode(worst, forKey: .worst)
        try c.encode(grid, forKey: .grid)
        try c.encode(points, forKey: .points)
    }

    var rangeText: String { range.map { "at \(Length.format($0)) mm" } ?? "at infinity" }

    public var summary: String {
        String(format: "projection difference %@ -> %@ %@ (%dx%d points, implied rotation %.3f° %@): median %.3f px, worst %.3f px at (%.0f, %.0f)",
               first, second, rangeText, grid.columns, grid.rows, rotationDegrees,
               weighted ? "fitted weighted by both uncertainties" : "fitted to the middle of the image", median, worst.difference, worst.x, worst.y)
    }

    public func document() -> SheetDocument {
        let page = PageSize(name: "A4", width: .mm(210), height: .mm(297))
        let plot = ImageMapPlot(width: width, height: height, columns: grid.columns - 1, rows: grid.rows - 1, values: points.map(\.difference),
                                mark: (worst.x, worst.y), lines: [
            String(format: "Where the same world point projects through %@ and through %@ %@, after the implied rotation (%.3f°)%@ between their frames is removed:",
                   first, second, rangeText, rotationDegrees, range == nil ? "" : " and translation"),
            String(format: "median %.3f px, worst %.3f px at (%.0f, %.0f) (circled). The fit is %@, as mrcal's projection_diff.", median, worst.difference,
                   worst.x, worst.y, weighted ? "weighted by both calibrations' projection uncertainty" : "over the middle sixth of the image"),
        ])
        let title = "Projection difference: \(first) vs \(second)"
        return SheetDocument(title: "MarkerKit " + title, pages: [
            SheetDocument.Page(size: page) { canvas in
                canvas.text(title, x: 15, baseline: 18, size: 5, maxWidth: 180, bold: true)
                plot.draw(canvas, Rect(x: 15, y: 30, width: 180, height: 0))
                canvas.text(MarkerKitVersion.generator, x: 195, baseline: 290, size: 2.4, align: .right, color: .gray(0.4))
            },
        ])
    }
}

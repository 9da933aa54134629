import Foundation

/// The projection uncertainty of a calibration over a grid spanning its image, as `calibrations
/// uncertainty` prints and writes it (JSON: range, units, grid, median, worst, noise, views, points).
public struct UncertaintyMap: Codable, Sendable {
    public struct Grid: Codable, Sendable { public let columns: Int; public let rows: Int }

    public let calibration: String
    /// Distance along each pixel's ray (mm), or nil for points at infinity.
    public let range: Double?
    public var units = "mm"
    public let grid: Grid
    /// Median and worst sigma over the grid (px), and where the worst is.
    public let median: Double
    public let worst: ProjectionUncertainty.Point
    /// The calibration's observation noise (px) and view count.
    public let noise: Double
    public let views: Int
    public let points: [ProjectionUncertainty.Point]

    /// Points a side of the grid.
    public static let gridSides = 2...200

    /// The grid of every figure that sums a calibration's uncertainty up (its summary, verdict, report
    /// and `calibrations uncertainty` by default): 16 x 9 points, the image's corners included, so that
    /// they all print the same median and worst.
    public static let summaryGrid = Grid(columns: 16, rows: 9)

    /// The map of the summary grid (`summaryGrid`).
    public static func summary(_ uncertainty: ProjectionUncertainty, range: Double? = nil) throws -> UncertaintyMap {
        try UncertaintyMap(uncertainty, columns: summaryGrid.columns, rows: summaryGrid.rows, range: range)
    }

    /// Parses a grid written as `16x9` (points across and down, 2-200 each).
    public static func parseGrid(_ text: String) throws -> (columns: Int, rows: Int) {
        let (columns, rows) = try InputRange.pair(text, in: gridSides, shape: "a grid of points across and down", example: "16x9")
        return (columns, rows)
    }

    public init(_ uncertainty: ProjectionUncertainty, columns: Int, rows: Int, range: Double?) throws {
        guard Self.gridSides.contains(columns), Self.gridSides.contains(rows) else {
            throw MarkerKitError.invalidArgument("the grid is 2x2 to 200x200 points, not \(columns)x\(rows)")
        }
        let points = try uncertainty.sigmas(at: uncertainty.grid(columns: columns, rows: rows), range: range)
        calibration = uncertainty.calibration.name
        self.range = range
        grid = Grid(columns: columns, rows: rows)
        let sorted = points.map(\.sigma).sorted()
        median = sorted[sorted.count / 2]
        worst = points.max { $0.sigma < $1.sigma }!
        noise = uncertainty.covariance.noise
        views = uncertainty.covariance.views
        self.points = points
    }

    enum CodingKeys: String, CodingKey { case calibration, range, units, grid, median, worst, noise, views, points }

    /// `range` is written as a number in `units`, or "infinity".
    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(calibration, forKey: .calibration)
        if let range { try c.encode(range, forKey: .range) } else { try c.encode("infinity", forKey: .range) }
        try c.encode(units, forKey: .units)
        try c.encode(grid, forKey: .grid)
        try c.encode(median, forKey: .median)
        try c.encode(worst, forKey: .worst)
        try c.encode(noise, forKey: .noise)
        try c.encode(views, forKey: .views)
        try c.encode(points, forKey: .points)
    }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        calibration = try c.decode(String.self, forKey: .calibration)
        range = (try? c.decode(Double.self, forKey: .range))
        units = try c.decode(String.self, forKey: .units)
        grid = try c.decode(Grid.self, forKey: .grid)
        median = try c.decode(Double.self, forKey: .median)
        worst = try c.decode(ProjectionUncertainty.Point.self, forKey: .worst)
        noise = try c.decode(Double.self, forKey: .noise)
        views = try c.decode(Int.self, forKey: .views)
        points = try c.decode([ProjectionUncertainty.Point].self, forKey: .points)
    }

    /// "at infinity" or "at 2000 mm".
    public var rangeText: String { range.map { "at \(Length.format($0)) mm" } ?? "at infinity" }

    /// The summary line and the grid of sigmas, row by row (px, two decimals).
    public var table: String {
        var lines = [String(format: "projection uncertainty of %@ %@, %dx%d points: median %.3f px, worst %.3f px at (%.0f, %.0f); corner noise %.3f px, %d views",
                            calibration, rangeText, grid.columns, grid.rows, median, worst.sigma, worst.x, worst.y, noise, views)]
        for row in 0..<grid.rows {
            lines.append(points[(row * grid.columns)..<((row + 1) * grid.columns)].map { String(format: "%6.2f", $0.sigma) }.joined())
        }
        return lines.joined(separator: "\n")
    }
}

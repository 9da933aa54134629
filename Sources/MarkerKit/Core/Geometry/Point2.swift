/// A point in pixels; integer coordinates are pixel centres, as in OpenCV.
public struct Point2: Equatable, Sendable, Codable {
    public var x: Double
    public var y: Double
    public init(x: Double, y: Double) { self.x = x; self.y = y }

    public func distance(to other: Point2) -> Double { ((x - other.x) * (x - other.x) + (y - other.y) * (y - other.y)).squareRoot() }

    /// Where two lines, each a point and a direction, cross; nil when they are parallel.
    public static func intersection(_ l1: (point: Point2, direction: Point2), _ l2: (point: Point2, direction: Point2)) -> Point2? {
        let det = l1.direction.x * l2.direction.y - l1.direction.y * l2.direction.x
        guard abs(det) > 1e-9 else { return nil }
        let dx = l2.point.x - l1.point.x, dy = l2.point.y - l1.point.y
        let t = (dx * l2.direction.y - dy * l2.direction.x) / det
        return Point2(x: l1.point.x + t * l1.direction.x, y: l1.point.y + t * l1.direction.y)
    }
}

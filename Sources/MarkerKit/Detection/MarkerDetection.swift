/// A point in pixels; integer coordinates are pixel centres, as in OpenCV.
public struct Point2: Equatable, Sendable, Codable {
    public var x: Double
    public var y: Double
    public init(x: Double, y: Double) { self.x = x; self.y = y }

    public func distance(to other: Point2) -> Double { ((x - other.x) * (x - other.x) + (y - other.y) * (y - other.y)).squareRoot() }
}

/// One marker found in an image: its ID and its four outer corners in the marker's own order
/// (top-left, top-right, bottom-right, bottom-left of the marker as printed), as OpenCV's aruco.
public struct MarkerDetection: Equatable, Sendable {
    public let id: Int
    public let corners: [Point2]

    public init(id: Int, corners: [Point2]) {
        precondition(corners.count == 4, "a marker has four corners")
        self.id = id
        self.corners = corners
    }

    /// Mean length of the four sides, in pixels.
    public var meanSide: Double {
        (0..<4).map { corners[$0].distance(to: corners[($0 + 1) % 4]) }.reduce(0, +) / 4
    }
}

/// One marker found in an image: its ID and its four outer corners in the marker's own order
/// (top-left, top-right, bottom-right, bottom-left of the marker as printed), as OpenCV's aruco.
public struct MarkerDetection: Equatable, Sendable {
    public let id: Int
    /// The corners, kept in the value: detection makes these for every marker of every frame.
    public let quad: Quad
    /// The corners' noise as the corner refiner measured it (nil for corners it did not refine, and for
    /// other detectors' markers).
    public var noise: CornerNoise?

    public init(id: Int, corners: [Point2]) {
        precondition(corners.count == 4, "a marker has four corners")
        self.init(id: id, quad: Quad(corners: corners))
    }

    public init(id: Int, quad: Quad, noise: CornerNoise? = nil) {
        self.id = id
        self.quad = quad
        self.noise = noise
    }

    /// The corners as an array (which allocates; the detector's own stages use `quad`).
    public var corners: [Point2] { quad.corners }

    /// Mean length of the four sides, in pixels.
    public var meanSide: Double { quad.perimeter / 4 }

    public var center: Point2 { quad.center }
}

import CVBridge

/// A shadow across the image, as a hand, a phone or the edge of a lamp's light throws one on a sheet: a
/// polygon in pixels (OpenCV's convention, pixel centres at integers), inside which `darkness` of the
/// light is missing, with a soft edge (a Gaussian of standard deviation `softness` px across it).
public struct Shadow: Sendable, Equatable, Codable {
    public var polygon: [Point2]
    /// The fraction of the light missing inside (0-1).
    public var darkness: Double
    /// Standard deviation of the edge, pixels (0: a hard edge, anti-aliased).
    public var softness: Double

    public init(polygon: [Point2], darkness: Double, softness: Double) {
        self.polygon = polygon
        self.darkness = darkness
        self.softness = softness
    }

    /// Whether every value can be drawn.
    public var isValid: Bool {
        polygon.count >= 3 && polygon.allSatisfy { $0.x.isFinite && $0.y.isFinite && abs($0.x) <= 1e6 && abs($0.y) <= 1e6 }
            && (0...1).contains(darkness) && softness.isFinite && (0...10_000).contains(softness)
    }

    /// Multiplies `light` (width x height factors) by the light this shadow leaves: 1 - darkness inside.
    func darken(_ light: inout [Float], width: Int, height: Int) throws {
        guard darkness > 0 else { return }
        var mask = [Float](repeating: 0, count: width * height)
        let xy = polygon.flatMap { [$0.x, $0.y] }
        let status = mask.withUnsafeMutableBufferPointer {
            cvb_soft_polygon($0.baseAddress, Int32(width), Int32(height), xy, Int32(polygon.count), softness)
        }
        try Bridge.check(status)
        let d = Float(darkness)
        for i in light.indices { light[i] *= 1 - d * mask[i] }
    }
}

import Foundation

/// How far a refined marker's corners may be off, as the refiner's own edge fits measure it: each of the
/// four edges (edge k from corner k to corner k + 1) is a line fitted to many sub-pixel edge points, and
/// the scatter of those points about the line gives the variance of the line's offset (along its normal)
/// at the edge's two ends and their covariance. The corners are where neighbouring edges meet, so their
/// covariance follows (`mkk_square_corner_covariance`), and from it a pose's (`MarkerPoseEstimator.sigma`).
/// Values in px^2; kept in the value (one per marker of every frame).
public struct CornerNoise: Sendable, Equatable {
    /// Each edge's offset variance at its start and at its end, and the covariance of the two.
    public var start: SIMD4<Double>
    public var end: SIMD4<Double>
    public var covariance: SIMD4<Double>

    public init(start: SIMD4<Double>, end: SIMD4<Double>, covariance: SIMD4<Double>) {
        self.start = start
        self.end = end
        self.covariance = covariance
    }

    /// The same noise for the corners renumbered from corner `turn` (edge j of the result is edge
    /// (j + turn) % 4 of this one).
    public func rotated(by turn: Int) -> CornerNoise {
        var result = self
        for j in 0..<4 {
            let k = (j + turn) % 4
            result.start[j] = start[k]
            result.end[j] = end[k]
            result.covariance[j] = covariance[k]
        }
        return result
    }

    /// The edge fits' scatter misses what an edge's profiles all share: where a marker's black border is
    /// only a few pixels wide (a small marker, or a steep one's foreshortened edges), each profile across
    /// the edge reaches the code's cells inside it and the edge comes out shifted, alike along its length.
    /// Measured on `verify pose` renders (noise 2, blur 0.7, JPEG 90; seeds 7 and 8), that shift's spread is
    /// 0.13-0.15 px with a border 2.4-2.9 px wide, 0.03-0.11 px at 4-6 px, 0.01 px at 11 px and none from
    /// 23 px: about 0.25 exp(-w / 3.5) px for a border w px wide across the edge. Since a thin border's
    /// profiles stop inside it (`CornerRefiner.insideBorder`) less of that shift is left at 4-6 px, and the
    /// floor falls faster: 0.25 exp(-w / 3.2) (docs/MEASUREMENTS.md, "Pose sigma"). This adds it to each
    /// edge's two ends, `cells` being the marker's cells across with its border (the dictionary's size + 2).
    public func withBorderFloor(_ quad: Quad, cells: Int) -> CornerNoise {
        var result = self
        for k in 0..<4 {
            let a = quad[k], b = quad[(k + 1) % 4]
            // The marker's depth across edge k: the mean distance of the two far corners from its line.
            let depth = (CornerRefiner.distance(quad[(k + 2) % 4], toLineThrough: a, b) + CornerRefiner.distance(quad[(k + 3) % 4], toLineThrough: a, b)) / 2
            let border = depth / Double(max(cells, 1))
            let floor = Self.floorScale * exp(-border / Self.floorWidth)
            result.start[k] += floor * floor
            result.end[k] += floor * floor
        }
        return result
    }

    /// The floor's scale (px) and how fast it falls with the border's width (px).
    static let floorScale = 0.25, floorWidth = 3.2

    /// The 12 values as mkk_square_corner_covariance reads them (start, end, covariance per edge).
    var values: (Double, Double, Double, Double, Double, Double, Double, Double, Double, Double, Double, Double) {
        (start[0], end[0], covariance[0], start[1], end[1], covariance[1], start[2], end[2], covariance[2], start[3], end[3], covariance[3])
    }
}

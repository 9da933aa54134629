import MarkerKitKernels
/// Stage 9: sub-pixel corners. A marker's corners are L-corners, where corner detectors made for
/// chessboard X-corners are biased; instead each outer edge is located to sub-pixel precision at many
/// points along its length, a line is fitted to each edge, and the corners are where neighbouring lines
/// meet.
public enum CornerRefiner {
    /// Refines until the corners move less than 0.02 px (at most three passes): each pass centres the
    /// edge profiles on the previous pass's edges, which matters for small markers whose integer polygon
    /// corners can be a pixel off with only a few pixels of border to search.
    public static func refine(_ corners: [Point2], in image: GrayImage) -> [Point2] {
        var scratch = Scratch()
        return refine(corners, in: image, scratch: &scratch)
    }

    /// Buffers for the edge profiles, reused for every edge of every candidate.
    public struct Scratch {
        var points: [Point2] = []
        var strengths: [Double] = []
        /// The edge and the profiles' points and contrasts, as mkk_edge_profiles reads and writes them.
        var bridge: [Double] = []
        public init() {}
    }

    public static func refine(_ corners: [Point2], in image: GrayImage, scratch: inout Scratch) -> [Point2] {
        refine(Quad(corners: corners), in: image, scratch: &scratch).corners
    }

    /// The same on a quadrilateral, without arrays.
    public static func refine(_ quad: Quad, in image: GrayImage, scratch: inout Scratch) -> Quad {
        refineMeasured(quad, in: image, scratch: &scratch).quad
    }

    /// The refined corners and their noise as the last pass's edge fits measured it (nil when no pass
    /// succeeded: the corners are `quad`'s).
    public static func refineMeasured(_ quad: Quad, in image: GrayImage, scratch: inout Scratch) -> (quad: Quad, noise: CornerNoise?) {
        var current = InlineArray<4, Point2> { quad[$0] }
        var noise: CornerNoise?
        for _ in 0..<3 {
            guard let (next, measured) = refineOnce(current, in: image, scratch: &scratch) else { break } // keep the last good corners
            var moved = 0.0
            for i in 0..<4 { moved = max(moved, next[i].distance(to: current[i])) }
            current = next
            noise = measured
            if moved < 0.02 { break }
        }
        return (Quad(current[0], current[1], current[2], current[3]), noise)
    }

    /// A refined marker's corners once more where its black border is thin (a small marker, or an edge
    /// foreshortened by tilt): one pass whose profiles stop inside the border instead of reaching the
    /// code cells behind it (mkk_edge_profiles with `cells`, the marker's side in cells with the border).
    /// Nil where the border is wide enough for every profile (the refined corners stand) or the pass fails.
    /// The code was read before this pass: the reads, and so which markers are found, do not change.
    public static func insideBorder(_ quad: Quad, cells: Int, in image: GrayImage, scratch: inout Scratch) -> (quad: Quad, noise: CornerNoise)? {
        guard cells > 0 else { return nil }
        var thin = false
        for side in 0..<4 {
            let a = quad[side], b = quad[(side + 1) % 4], length = a.distance(to: b)
            // The profiles' reach against the border's width across the edge.
            let reach = Double(mkk_edge_profile_reach(length))
            let across = min(distance(quad[(side + 3) % 4], toLineThrough: a, b), distance(quad[(side + 2) % 4], toLineThrough: a, b))
            if across / Double(cells) < reach + 1.5 { thin = true }
        }
        guard thin, let (corners, noise) = refineOnce(InlineArray<4, Point2> { quad[$0] }, cells: cells, in: image, scratch: &scratch) else { return nil }
        return (Quad(corners[0], corners[1], corners[2], corners[3]), noise)
    }

    /// One pass and its edges' noise; nil when an edge cannot be fitted or a corner would move too far.
    static func refineOnce(_ corners: InlineArray<4, Point2>, cells: Int = 0, in image: GrayImage, scratch: inout Scratch) -> (InlineArray<4, Point2>, CornerNoise)? {
        var curves = InlineArray<4, EdgeCurve?>(repeating: nil)
        for side in 0..<4 {
            let a = corners[side], b = corners[(side + 1) % 4]
            edgePoints(from: a, to: b, before: corners[(side + 3) % 4], after: corners[(side + 2) % 4], cells: cells, in: image, scratch: &scratch)
            guard scratch.points.count >= 6, let curve = EdgeCurve(from: a, to: b, points: scratch.points) else { return nil }
            curves[side] = curve
        }
        var sideLength = Double.infinity
        for i in 0..<4 { sideLength = min(sideLength, corners[i].distance(to: corners[(i + 1) % 4])) }
        let maxMove = max(1.5, sideLength / 10)
        var refined = corners
        for i in 0..<4 {
            // Corner i ends edge i-1 and starts edge i.
            guard let p = EdgeCurve.meet(curves[(i + 3) % 4]!, curves[i]!), p.distance(to: corners[i]) <= maxMove else { return nil }
            refined[i] = p
        }
        var noise = CornerNoise(start: .zero, end: .zero, covariance: .zero)
        for k in 0..<4 { (noise.start[k], noise.end[k], noise.covariance[k]) = curves[k]!.noise }
        return (refined, noise)
    }

    /// An edge as a curve: offset from the chord between its corners as a polynomial in the distance along
    /// it. Long edges get a quadratic term, which follows the bow a lens gives a straight edge; short
    /// ones, where the bow is far below a pixel, stay straight.
    struct EdgeCurve {
        let origin: Point2, along: Point2, normal: Point2
        let c0: Double, c1: Double, c2: Double
        /// The variance of the curve's offset at its start and at its end (px^2) and their covariance, from
        /// the points' scatter about it (residual variance times the fit's inverse normal matrix).
        let noise: (start: Double, end: Double, both: Double)

        init?(from a: Point2, to b: Point2, points: [Point2]) {
            let length = a.distance(to: b)
            let along = Point2(x: (b.x - a.x) / length, y: (b.y - a.y) / length)
            let normal = Point2(x: -along.y, y: along.x)
            origin = a
            self.along = along
            self.normal = normal
            // Least squares of o = k0 + k1 t + k2 t^2 with t = s / length, from the sums of powers
            // (no arrays: this runs for every candidate with a clean border).
            var m = (0.0, 0.0, 0.0, 0.0, 0.0) // sums of t^0 .. t^4
            var r = (0.0, 0.0, 0.0)           // sums of o t^0 .. o t^2
            for p in points {
                let t = ((p.x - a.x) * along.x + (p.y - a.y) * along.y) / length
                let o = (p.x - a.x) * normal.x + (p.y - a.y) * normal.y
                let t2 = t * t
                m.0 += 1; m.1 += t; m.2 += t2; m.3 += t2 * t; m.4 += t2 * t2
                r.0 += o; r.1 += o * t; r.2 += o * t2
            }
            // The fit in t (k0 + k1 t + k2 t^2) and the inverse normal matrix's entries that give the offset's
            // variance at t = 0 and t = 1: a(t)^T M^-1 a(t) with a(t) = (1, t, t^2).
            let k: (Double, Double, Double), atStart: Double, atEnd: Double, across: Double, parameters: Double
            if length >= 40 {
                let a: InlineArray<9, Double> = [m.0, m.1, m.2, m.1, m.2, m.3, m.2, m.3, m.4]
                guard let solved = EdgeCurve.solve3(a, [r.0, r.1, r.2]),
                      let i0 = EdgeCurve.solve3(a, [1, 0, 0]), let i1 = EdgeCurve.solve3(a, [0, 1, 0]), let i2 = EdgeCurve.solve3(a, [0, 0, 1]) else { return nil }
                k = solved
                atStart = i0.0
                across = i0.0 + i0.1 + i0.2
                atEnd = across + (i1.0 + i1.1 + i1.2) + (i2.0 + i2.1 + i2.2)
                parameters = 3
            } else {
                let det = m.0 * m.2 - m.1 * m.1
                guard abs(det) > 1e-12 else { return nil }
                k = ((r.0 * m.2 - m.1 * r.1) / det, (m.0 * r.1 - m.1 * r.0) / det, 0)
                (atStart, atEnd, across) = (m.2 / det, (m.2 - 2 * m.1 + m.0) / det, (m.2 - m.1) / det)
                parameters = 2
            }
            (c0, c1, c2) = (k.0, k.1 / length, k.2 / (length * length))
            var squares = 0.0
            for p in points {
                let t = ((p.x - a.x) * along.x + (p.y - a.y) * along.y) / length
                let o = (p.x - a.x) * normal.x + (p.y - a.y) * normal.y
                let residual = o - (k.0 + k.1 * t + k.2 * t * t)
                squares += residual * residual
            }
            let variance = squares / max(m.0 - parameters, 1)
            noise = (variance * atStart, variance * atEnd, variance * across)
        }

        /// Solves a 3x3 system (row-major) by Cramer's rule.
        static func solve3(_ a: InlineArray<9, Double>, _ b: InlineArray<3, Double>) -> (Double, Double, Double)? {
            func det(_ m: InlineArray<9, Double>) -> Double {
                m[0] * (m[4] * m[8] - m[5] * m[7]) - m[1] * (m[3] * m[8] - m[5] * m[6]) + m[2] * (m[3] * m[7] - m[4] * m[6])
            }
            let d = det(a)
            guard abs(d) > 1e-12 else { return nil }
            let x = det([b[0], a[1], a[2], b[1], a[4], a[5], b[2], a[7], a[8]]) / d
            let y = det([a[0], b[0], a[2], a[3], b[1], a[5], a[6], b[2], a[8]]) / d
            let z = det([a[0], a[1], b[0], a[3], a[4], b[1], a[6], a[7], b[2]]) / d
            return (x, y, z)
        }

        func point(_ s: Double) -> Point2 {
            let o = c0 + c1 * s + c2 * s * s
            return Point2(x: origin.x + s * along.x + o * normal.x, y: origin.y + s * along.y + o * normal.y)
        }

        func tangent(_ s: Double) -> Point2 {
            let d = c1 + 2 * c2 * s
            return Point2(x: along.x + d * normal.x, y: along.y + d * normal.y)
        }

        /// Where the end of `incoming` meets the start of `outgoing` (Newton's method from the chords' ends).
        static func meet(_ incoming: EdgeCurve, _ outgoing: EdgeCurve) -> Point2? {
            var s1 = (outgoing.origin.x - incoming.origin.x) * incoming.along.x + (outgoing.origin.y - incoming.origin.y) * incoming.along.y
            var s2 = 0.0
            for _ in 0..<8 {
                let p = incoming.point(s1), q = outgoing.point(s2)
                let t1 = incoming.tangent(s1), t2 = outgoing.tangent(s2)
                // Solve t1 * ds1 - t2 * ds2 = q - p.
                let det = t1.x * (-t2.y) - t1.y * (-t2.x)
                guard abs(det) > 1e-9 else { return nil }
                let rx = q.x - p.x, ry = q.y - p.y
                let d1 = (rx * (-t2.y) - ry * (-t2.x)) / det
                let d2 = (t1.x * ry - t1.y * rx) / det
                s1 += d1
                s2 += d2
                if abs(d1) + abs(d2) < 1e-9 { break }
            }
            let p = incoming.point(s1)
            return p.x.isFinite && p.y.isFinite ? p : nil
        }
    }

    /// Sub-pixel points on the edge between two corners, from `a` towards `b`, into `scratch.points`
    /// (empty when the edge is too short or too weak).
    ///
    /// Each edge point comes from a profile across the edge, one sample per pixel along the normal from
    /// the light quiet zone outside to the black border inside. The edge sits where the light area ends:
    /// with the profile normalised to 1 (light) .. 0 (dark), the sum of the samples is the distance from
    /// the profile's outer end to the edge. For an edge blurred or antialiased by area coverage this is
    /// exact where the peak of a gradient is biased towards pixel centres.
    /// Profiles that would reach across a neighbouring edge (at an acute corner of a steep marker) are
    /// left out: `before` and `after` are the corners beyond `a` and `b`. Weak points (glare, occlusion:
    /// less than half the median contrast) are dropped before fitting.
    /// With `cells` (the marker's side in cells, border included; 0: not known) a thin border's profiles
    /// stop inside it (see `insideBorder`).
    static func edgePoints(from a: Point2, to b: Point2, before: Point2, after: Point2, cells: Int = 0, in image: GrayImage, scratch: inout Scratch) {
        scratch.points.removeAll(keepingCapacity: true)
        scratch.strengths.removeAll(keepingCapacity: true)
        // The profiles and the filter of weak ones in the bridge (mkk_edge_profiles: the same arithmetic,
        // vectorised), into memory the scratch keeps (188 doubles: more than withUnsafeTemporaryAllocation
        // puts on the stack).
        if scratch.bridge.count < 8 + 3 * 60 { scratch.bridge = [Double](repeating: 0, count: 8 + 3 * 60) }
        let count = scratch.bridge.withUnsafeMutableBufferPointer { memory in
            let edge = memory.baseAddress!, points = edge + 8, strengths = points + 120
            (edge[0], edge[1], edge[2], edge[3], edge[4], edge[5], edge[6], edge[7]) = (a.x, a.y, b.x, b.y, before.x, before.y, after.x, after.y)
            return image.pixels.withUnsafeBufferPointer {
                Int(mkk_edge_profiles($0.baseAddress, Int32(image.width), Int32(image.height), Int32(image.width), edge, Int32(cells), points, strengths))
            }
        }
        for i in 0..<max(count, 0) {
            scratch.points.append(Point2(x: scratch.bridge[8 + 2 * i], y: scratch.bridge[9 + 2 * i]))
            scratch.strengths.append(scratch.bridge[128 + i])
        }
    }

    static func distance(_ p: Point2, toLineThrough a: Point2, _ b: Point2) -> Double {
        distance(p, toLineThrough: a, b, length: a.distance(to: b))
    }

    /// The same with the line's length `a.distance(to: b)` worked out by the caller.
    static func distance(_ p: Point2, toLineThrough a: Point2, _ b: Point2, length: Double) -> Double {
        guard length > 0 else { return p.distance(to: a) }
        return abs((b.x - a.x) * (p.y - a.y) - (b.y - a.y) * (p.x - a.x)) / length
    }

    /// Total least squares line through points: their centroid and principal direction.
    static func fitLine(_ points: [Point2]) -> (point: Point2, direction: Point2) {
        let count = Double(points.count)
        let cx = points.map(\.x).reduce(0, +) / count, cy = points.map(\.y).reduce(0, +) / count
        var sxx = 0.0, sxy = 0.0, syy = 0.0
        for p in points {
            sxx += (p.x - cx) * (p.x - cx); sxy += (p.x - cx) * (p.y - cy); syy += (p.y - cy) * (p.y - cy)
        }
        let angle = 0.5 * atan2(2 * sxy, sxx - syy)
        return (Point2(x: cx, y: cy), Point2(x: cos(angle), y: sin(angle)))
    }
}

import Foundation

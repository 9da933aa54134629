import Foundation

/// A plane-to-plane projective map, (u, v) to (x, y): row-major 3x3 with the last entry 1.
public struct Homography: Sendable, Equatable {
    public let h: [Double]

    public init(_ h: [Double]) { self.h = h }

    /// The least-squares fit (DLT on coordinates moved to their centroid and scaled to unit spread) of
    /// `from` onto `to`, or nil with fewer than four pairs or points too close to a line.
    public init?(from: [Point2], to: [Point2]) {
        guard from.count == to.count, from.count >= 4 else { return nil }
        func normalizer(_ p: [Point2]) -> (cx: Double, cy: Double, s: Double) {
            var sx = 0.0, sy = 0.0
            for q in p { sx += q.x; sy += q.y }
            let cx = sx / Double(p.count), cy = sy / Double(p.count)
            var spread = 0.0
            for q in p { spread += ((q.x - cx) * (q.x - cx) + (q.y - cy) * (q.y - cy)).squareRoot() }
            spread /= Double(p.count)
            return (cx, cy, spread > 0 ? 2.squareRoot() / spread : 1)
        }
        let a = normalizer(from), b = normalizer(to)
        var normal = [Double](repeating: 0, count: 64), right = [Double](repeating: 0, count: 8)
        // Each pair's two rows held in SIMD values, not arrays: an array a row cost two allocations a point,
        // and the ChArUco search fits over a thousand of these a photo.
        normal.withUnsafeMutableBufferPointer { normal in
            right.withUnsafeMutableBufferPointer { right in
                for (p, q) in zip(from, to) {
                    let u = (p.x - a.cx) * a.s, v = (p.y - a.cy) * a.s, x = (q.x - b.cx) * b.s, y = (q.y - b.cy) * b.s
                    func add(_ row: SIMD8<Double>, _ rhs: Double) {
                        for i in 0..<8 {
                            right[i] += row[i] * rhs
                            for j in 0..<8 { normal[8 * i + j] += row[i] * row[j] }
                        }
                    }
                    add(SIMD8<Double>(u, v, 1, 0, 0, 0, -u * x, -v * x), x)
                    add(SIMD8<Double>(0, 0, 0, u, v, 1, -u * y, -v * y), y)
                }
            }
        }
        guard let n = LinearSystem.solve(normal, right, size: 8) else { return nil }
        // Undo the normalizations: H = Tb^-1 * N * Ta.
        let ta = [a.s, 0, -a.s * a.cx, 0, a.s, -a.s * a.cy, 0, 0, 1]
        let tbInverse = [1 / b.s, 0, b.cx, 0, 1 / b.s, b.cy, 0, 0, 1]
        let m = Self.multiply(tbInverse, Self.multiply(n + [1], ta))
        guard m[8] != 0, m.allSatisfy(\.isFinite) else { return nil }
        h = m.map { $0 / m[8] }
        // Nearly collinear points leave the fit undetermined.
        guard abs(h[0] * h[4] - h[1] * h[3]) > 1e-12 else { return nil }
    }

    public func map(_ p: Point2) -> Point2 {
        let w = h[6] * p.x + h[7] * p.y + h[8]
        return Point2(x: (h[0] * p.x + h[1] * p.y + h[2]) / w, y: (h[3] * p.x + h[4] * p.y + h[5]) / w)
    }

    /// The inverse map, or nil when this one is singular.
    public var inverse: Homography? {
        let a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], k = h[7], i = h[8]
        let det = a * (e * i - f * k) - b * (d * i - f * g) + c * (d * k - e * g)
        guard abs(det) > 1e-15, det.isFinite else { return nil }
        let m = [e * i - f * k, c * k - b * i, b * f - c * e, f * g - d * i, a * i - c * g, c * d - a * f,
                 d * k - e * g, b * g - a * k, a * e - b * d]
        return Homography(m.map { $0 / m[8] })
    }

    /// The map's derivative at `p`: how (x, y) moves per unit of u and of v.
    public func jacobian(at p: Point2) -> (du: Point2, dv: Point2) {
        let w = h[6] * p.x + h[7] * p.y + h[8], q = map(p)
        return (Point2(x: (h[0] - h[6] * q.x) / w, y: (h[3] - h[6] * q.y) / w),
                Point2(x: (h[1] - h[7] * q.x) / w, y: (h[4] - h[7] * q.y) / w))
    }

    static func multiply(_ a: [Double], _ b: [Double]) -> [Double] {
        var m = [Double](repeating: 0, count: 9)
        for i in 0..<3 { for j in 0..<3 { for k in 0..<3 { m[3 * i + j] += a[3 * i + k] * b[3 * k + j] } } }
        return m
    }
}

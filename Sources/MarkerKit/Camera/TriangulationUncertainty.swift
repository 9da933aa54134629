import CVBridge
import Foundation

/// How far off a point triangulated by two cameras of a rig can be (mrcal's triangulation uncertainty):
/// the point at `distance` straight ahead of the pair (from the middle of its baseline, along the mean of
/// the two optical axes) is seen by both cameras; it moves when the rig is calibrated again with new corner
/// noise (the calibration's covariance, propagated through the triangulation of the same two pixels) and
/// when those two pixels are observed with the corners' noise. Each is given along the line of sight
/// (range) and across it (the largest direction), in the rig's units.
public struct TriangulationUncertainty: Sendable {
    public let first: Int
    public let second: Int
    public let distance: Double
    /// The point, in camera 0's frame, and the pixels it projects to in the two cameras.
    public let point: [Double]
    public let pixels: (Point2, Point2)
    public let calibration: (range: Double, lateral: Double)
    public let observation: (range: Double, lateral: Double)
    public let combined: (range: Double, lateral: Double)

    public init(rig: CameraRig, first: Int = 0, second: Int = 1, distance: Double) throws {
        guard rig.cameras.indices.contains(first), rig.cameras.indices.contains(second), first != second else {
            throw MarkerKitError.invalidArgument("triangulation takes two different cameras of the rig's \(rig.cameras.count)")
        }
        guard distance.isFinite, distance > 0 else { throw MarkerKitError.invalidArgument("the distance must be positive and finite") }
        let size = CameraRig.covarianceSize(rig.cameras)
        guard rig.covariance.count == size * size, rig.covariance.contains(where: { $0 != 0 }) else {
            throw MarkerKitError.badInput("rig '\(rig.name)' has no covariance (an import): only a rig MarkerKit calibrated carries its uncertainty")
        }
        let parameters = RigParameters(rig)
        let a = rig.centre(of: first), b = rig.centre(of: second)
        let axis = [first, second].map { c -> [Double] in let r = rig.extrinsics[c].rotation; return [r[6], r[7], r[8]] }
        let middle = (0..<3).map { (a[$0] + b[$0]) / 2 }, direction = Self.unit((0..<3).map { axis[0][$0] + axis[1][$0] })
        let point = (0..<3).map { middle[$0] + distance * direction[$0] }
        let seen = try [first, second].map { c -> Point2 in
            let local = RigMath.apply(rig.extrinsics[c], point)
            return try rig.cameras[c].project([(local[0], local[1], local[2])], pose: Pose3D(rvec: [0, 0, 0], tvec: [0, 0, 0]))[0]
        }
        func triangulate(_ values: [Double], _ p: (Point2, Point2)) throws -> [Double] {
            try parameters.rig(values).triangulate(p.0, in: first, p.1, in: second)
        }
        // Central differences, each parameter stepped by a thousandth of its own sigma.
        var jacobian = [[Double]](repeating: [Double](repeating: 0, count: size), count: 3)
        for i in 0..<size {
            let sigma = rig.covariance[i * size + i].squareRoot()
            guard sigma > 0 else { continue }
            let h = 1e-3 * sigma
            var plus = parameters.values, minus = parameters.values
            plus[i] += h
            minus[i] -= h
            let up = try triangulate(plus, (seen[0], seen[1])), down = try triangulate(minus, (seen[0], seen[1]))
            for k in 0..<3 { jacobian[k][i] = (up[k] - down[k]) / (2 * h) }
        }
        var calibration = [Double](repeating: 0, count: 9)
        for r in 0..<3 {
            for c in 0..<3 {
                var s = 0.0
                for i in 0..<size where jacobian[r][i] != 0 {
                    for j in 0..<size where jacobian[c][j] != 0 { s += jacobian[r][i] * rig.covariance[i * size + j] * jacobian[c][j] }
                }
                calibration[3 * r + c] = s
            }
        }
        // The two pixels' noise, each coordinate with the rig's corner noise.
        var observation = [Double](repeating: 0, count: 9)
        let h = 1e-3
        for i in 0..<4 {
            func moved(_ sign: Double) -> (Point2, Point2) {
                var p = [seen[0].x, seen[0].y, seen[1].x, seen[1].y]
                p[i] += sign * h
                return (Point2(x: p[0], y: p[1]), Point2(x: p[2], y: p[3]))
            }
            let up = try triangulate(parameters.values, moved(1)), down = try triangulate(parameters.values, moved(-1))
            let d = (0..<3).map { (up[$0] - down[$0]) / (2 * h) }
            for r in 0..<3 { for c in 0..<3 { observation[3 * r + c] += rig.noise * rig.noise * d[r] * d[c] } }
        }
        let line = Self.unit((0..<3).map { point[$0] - middle[$0] })
        (self.first, self.second, self.distance, self.point, self.pixels) = (first, second, distance, point, (seen[0], seen[1]))
        self.calibration = Self.split(calibration, along: line)
        self.observation = Self.split(observation, along: line)
        self.combined = Self.split(zip(calibration, observation).map { $0 + $1 }, along: line)
    }

    static func unit(_ v: [Double]) -> [Double] {
        let n = v.map { $0 * $0 }.reduce(0, +).squareRoot()
        return v.map { $0 / n }
    }

    /// A 3x3 covariance's sigma along `u` and its largest sigma across it.
    static func split(_ m: [Double], along u: [Double]) -> (range: Double, lateral: Double) {
        var along = 0.0
        for i in 0..<3 { for j in 0..<3 { along += u[i] * m[3 * i + j] * u[j] } }
        // Across: P M P with P = I - u u^T.
        var p = [Double](repeating: 0, count: 9), pm = p, pmp = p
        for i in 0..<3 { for j in 0..<3 { p[3 * i + j] = (i == j ? 1.0 : 0.0) - u[i] * u[j] } }
        for i in 0..<3 { for j in 0..<3 { for k in 0..<3 { pm[3 * i + j] += p[3 * i + k] * m[3 * k + j] } } }
        for i in 0..<3 { for j in 0..<3 { for k in 0..<3 { pmp[3 * i + j] += pm[3 * i + k] * p[3 * k + j] } } }
        return (max(0, along).squareRoot(), CameraRig.largestEigenvalue3(pmp, offset: 0, stride: 3).squareRoot())
    }
}

/// A rig's parameters as one vector in the order of its covariance (each camera's intrinsics, then the
/// poses of cameras 1..), and the rig a changed vector makes.
struct RigParameters {
    let base: CameraRig
    let values: [Double]

    init(_ rig: CameraRig) {
        base = rig
        values = rig.cameras.flatMap { [$0.fx, $0.fy, $0.cx, $0.cy] + $0.distortion } + rig.extrinsics.dropFirst().flatMap { $0.rvec + $0.tvec }
    }

    func rig(_ v: [Double]) throws -> CameraRig {
        var rig = base, at = 0
        for c in rig.cameras.indices {
            let old = rig.cameras[c], n = old.distortion.count
            rig.cameras[c] = try CameraCalibration(name: old.name, model: old.model, cameraMatrix: [v[at], old.skew, v[at + 2], 0, v[at + 1], v[at + 3], 0, 0, 1],
                                                   distortion: Array(v[(at + 4)..<(at + 4 + n)]), imageWidth: old.imageWidth, imageHeight: old.imageHeight)
            at += 4 + n
        }
        for c in 1..<rig.cameras.count {
            rig.extrinsics[c] = Pose3D(rvec: Array(v[at..<(at + 3)]), tvec: Array(v[(at + 3)..<(at + 6)]))
            at += 6
        }
        return rig
    }
}

extension CameraRig {
    /// The point two cameras see at these pixels, in camera 0's frame: the middle of the shortest segment
    /// between their rays.
    public func triangulate(_ p: Point2, in a: Int, _ q: Point2, in b: Int) throws -> [Double] {
        let rays = try [(p, a), (q, b)].map { pixel, c -> [Double] in
            let camera = cameras[c]
            var normalized = [0.0, 0.0]
            try Bridge.check(cvb_undistort_points([pixel.x, pixel.y], 1, camera.cameraMatrix, camera.distortion, Int32(camera.distortion.count),
                                                  camera.bridgeModel, &normalized))
            let r = extrinsics[c].rotation, v = [normalized[0], normalized[1], 1.0]
            return (0..<3).map { i in r[i] * v[0] + r[3 + i] * v[1] + r[6 + i] * v[2] } // R^T v
        }
        let o1 = centre(of: a), o2 = centre(of: b), d1 = rays[0], d2 = rays[1]
        func dot(_ x: [Double], _ y: [Double]) -> Double { x[0] * y[0] + x[1] * y[1] + x[2] * y[2] }
        let w = (0..<3).map { o1[$0] - o2[$0] }
        let aa = dot(d1, d1), bb = dot(d1, d2), cc = dot(d2, d2), dd = dot(d1, w), ee = dot(d2, w)
        let denominator = aa * cc - bb * bb
        guard abs(denominator) > 1e-15 * aa * cc else { throw MarkerKitError.badInput("the two rays are parallel: no triangulation") }
        let s = (bb * ee - cc * dd) / denominator, t = (aa * ee - bb * dd) / denominator
        return (0..<3).map { (o1[$0] + s * d1[$0] + o2[$0] + t * d2[$0]) / 2 }
    }
}

import MarkerKitKernels

/// How far a pose may be off: the standard deviation of its rotation (degrees: the RMS angle between the
/// pose and the true one that the corners' noise predicts) and of its translation (the pose's unit: the RMS
/// length of the translation's error).
public struct PoseSigma: Codable, Sendable, Equatable {
    public let rotation: Double
    public let translation: Double

    public init(rotation: Double, translation: Double) {
        self.rotation = rotation
        self.translation = translation
    }

    enum CodingKeys: String, CodingKey { case rotation = "rotation_deg", translation }
}

/// A pose's uncertainty propagated from its points' noise through the least-squares pose: with J the
/// projection's Jacobian by the pose (a small turn after the rotation, a shift of the translation) and S
/// the points' covariance, the pose's covariance is (J^T J)^-1 J^T S J (J^T J)^-1. A marker's corners get
/// S from the corner refiner's edge fits (`CornerNoise`); a marker map's from each of its markers'; a
/// ChArUco board's corners an equal, independent noise estimated from the pose's own reprojection error.
public enum PoseUncertainty {
    /// The Jacobian (2 rows per point, 6 columns) of `object`'s projection (x y z each, the pose's unit) at
    /// `pose`: MarkerKit's kernel for pinhole lenses, differences of OpenCV's projection for the rest.
    public static func jacobian(object: [Double], pose: MarkerPose, calibration c: CameraCalibration) throws -> [Double] {
        let count = object.count / 3
        var out = [Double](repeating: 0, count: 12 * count)
        let values = pose.rvec + pose.tvec
        if c.model != .fisheye && c.distortion.count != 14 {
            try Bridge.check(mkk_projection_jacobian(object, Int32(count), values, c.cameraMatrix, c.distortion, Int32(c.distortion.count), &out))
            return out
        }
        return try differences(object: object, pose: pose, calibration: c)
    }

    /// The same Jacobian by central differences of `CameraCalibration.project` (OpenCV's projectPoints, any
    /// lens model), with the kernel's steps.
    static func differences(object: [Double], pose: MarkerPose, calibration c: CameraCalibration) throws -> [Double] {
        let count = object.count / 3
        var points: [(Double, Double, Double)] = []
        for i in 0..<count { points.append((object[3 * i], object[3 * i + 1], object[3 * i + 2])) }
        let distance = (pose.translation * pose.translation).sum().squareRoot()
        var out = [Double](repeating: 0, count: 12 * count)
        for k in 0..<6 {
            let step = k < 3 ? 1e-6 : 1e-6 * distance
            func moved(_ sign: Double) throws -> [Point2] {
                var turn = [0.0, 0.0, 0.0], shift = pose.tvec
                if k < 3 { turn[k] = sign * step } else { shift[k - 3] += sign * step }
                return try c.project(points, pose: Pose3D(rvec: Pose3D.compose(pose.rvec, then: turn), tvec: shift))
            }
            let plus = try moved(1), minus = try moved(-1)
            for i in 0..<count {
                out[(2 * i) * 6 + k] = (plus[i].x - minus[i].x) / (2 * step)
                out[(2 * i + 1) * 6 + k] = (plus[i].y - minus[i].y) / (2 * step)
            }
        }
        return out
    }

    /// The sigmas of the least-squares pose from points with Jacobian `jacobian` whose pixel errors have the
    /// block-diagonal covariance `covariance` (blocks of 2 * block coordinates, `mkk_pose_covariance`).
    public static func sigma(jacobian: [Double], block: Int, covariance: [Double]) throws -> PoseSigma {
        var out = [Double](repeating: 0, count: 36), sigma = [0.0, 0.0]
        try Bridge.check(mkk_pose_covariance(jacobian, Int32(jacobian.count / 12), Int32(block), covariance, &out))
        mkk_pose_sigma(out, &sigma)
        return PoseSigma(rotation: sigma[0], translation: sigma[1])
    }

    /// The sigma of a least-squares pose from `object` points (the pose's unit) whose noise is taken as
    /// equal and independent in x and y, estimated from the pose's RMS reprojection error `error` (px):
    /// sigma^2 = n error^2 / (2n - 6) for n points (a board's corners). Nil for fewer than 4 points or
    /// points that fix no pose.
    public static func fromResidual(object points: [SIMD3<Double>], pose: MarkerPose, error: Double, calibration: CameraCalibration) -> PoseSigma? {
        guard points.count >= 4, error.isFinite else { return nil }
        let variance = Double(points.count) * error * error / Double(2 * points.count - 6)
        var object: [Double] = [], covariance: [Double] = []
        for p in points {
            object += [p.x, p.y, p.z]
            covariance += [variance, 0, 0, variance]
        }
        guard let jacobian = try? jacobian(object: object, pose: pose, calibration: calibration) else { return nil }
        return try? sigma(jacobian: jacobian, block: 1, covariance: covariance)
    }

    /// A marker's 8x8 corner covariance (x y per corner, row-major) from its noise.
    public static func cornerCovariance(_ quad: Quad, noise: CornerNoise) throws -> [Double] {
        let corners = (0..<4).flatMap { [quad[$0].x, quad[$0].y] }
        let n = noise.values
        let edges = [n.0, n.1, n.2, n.3, n.4, n.5, n.6, n.7, n.8, n.9, n.10, n.11]
        var out = [Double](repeating: 0, count: 64)
        try Bridge.check(mkk_square_corner_covariance(corners, edges, &out))
        return out
    }
}

extension MarkerPoseEstimator {
    /// The sigma of `pose` of `marker` (one of its two poses) from the marker's corner noise; nil when the
    /// corners were not refined (no noise measured) or the pose cannot be differentiated. For pinhole lenses
    /// without heap allocation (`mkk_square_pose_sigma`).
    public func sigma(of marker: MarkerDetection, pose: MarkerPose) -> PoseSigma? {
        guard let noise = marker.noise else { return nil }
        let c = calibration
        guard c.model != .fisheye && c.distortion.count != 14 else { return try? ippeSigma(of: marker, noise: noise, pose: pose) }
        let q = marker.quad
        let corners = (q[0].x, q[0].y, q[1].x, q[1].y, q[2].x, q[2].y, q[3].x, q[3].y)
        let edges = noise.values
        let values = (pose.rotation.x, pose.rotation.y, pose.rotation.z, pose.translation.x, pose.translation.y, pose.translation.z)
        var out = (0.0, 0.0)
        let status = withUnsafeBytes(of: corners) { corners in
            withUnsafeBytes(of: edges) { edges in
                withUnsafeBytes(of: values) { values in
                    withUnsafeMutableBytes(of: &out) { out in
                        mkk_square_pose_sigma(corners.bindMemory(to: Double.self).baseAddress, edges.bindMemory(to: Double.self).baseAddress, side,
                                              values.bindMemory(to: Double.self).baseAddress, c.cameraMatrix, c.distortion, Int32(c.distortion.count),
                                              out.bindMemory(to: Double.self).baseAddress)
                    }
                }
            }
        }
        guard status == 0, out.0.isFinite, out.1.isFinite else { return nil }
        return PoseSigma(rotation: out.0, translation: out.1)
    }

    /// The same by differences of `poses(of:)` (OpenCV's IPPE for fisheye and tilted-sensor lenses), as the
    /// kernel does it: the sensitivity of the pose nearer `pose` to each corner coordinate, then A S A^T.
    func ippeSigma(of marker: MarkerDetection, noise: CornerNoise, pose: MarkerPose) throws -> PoseSigma {
        let covariance = try PoseUncertainty.cornerCovariance(marker.quad, noise: noise)
        let rotation = Pose3D(rvec: pose.rvec, tvec: pose.tvec).rotation, step = 1e-4
        var a = [[Double]](repeating: [Double](repeating: 0, count: 8), count: 6)
        for j in 0..<8 {
            var moved: [[Double]] = []
            for sign in [1.0, -1.0] {
                var corners = marker.corners
                if j % 2 == 0 { corners[j / 2].x += sign * step } else { corners[j / 2].y += sign * step }
                let both = try poses(of: MarkerDetection(id: marker.id, corners: corners))
                let near = both.chosen.degrees(from: pose) <= both.other.degrees(from: pose) ? both.chosen : both.other
                // The turn from `pose` to `near`: R_near R^T.
                let q = Pose3D(rvec: near.rvec, tvec: near.tvec).rotation
                var d = [Double](repeating: 0, count: 9)
                for r in 0..<3 { for c in 0..<3 { for k in 0..<3 { d[3 * r + c] += q[3 * r + k] * rotation[3 * c + k] } } }
                moved.append(Pose3D.rvec(from: d) + near.tvec)
            }
            for k in 0..<6 { a[k][j] = (moved[0][k] - moved[1][k]) / (2 * step) }
        }
        var p = [Double](repeating: 0, count: 36)
        for i in 0..<6 { for k in 0..<6 { for r in 0..<8 { for c in 0..<8 { p[6 * i + k] += a[i][r] * covariance[8 * r + c] * a[k][c] } } } }
        var sigma = [0.0, 0.0]
        mkk_pose_sigma(p, &sigma)
        return PoseSigma(rotation: sigma[0], translation: sigma[1])
    }
}

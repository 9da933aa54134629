import CVBridge
import MarkerKitKernels

/// A marker's pose in camera coordinates (OpenCV's marker frame: x right, y up, z out of the marker,
/// origin at its centre): a Rodrigues rotation vector and a translation in the marker size's unit.
/// Kept in the value, not in arrays: `track` makes one per marker per frame.
public struct MarkerPose: Sendable, Equatable {
    public var rotation: SIMD3<Double>
    public var translation: SIMD3<Double>

    public init(rotation: SIMD3<Double>, translation: SIMD3<Double>) {
        self.rotation = rotation
        self.translation = translation
    }

    public init(rvec: [Double], tvec: [Double]) {
        precondition(rvec.count == 3 && tvec.count == 3, "a pose has three rotation and three translation values")
        self.init(rotation: SIMD3(rvec[0], rvec[1], rvec[2]), translation: SIMD3(tvec[0], tvec[1], tvec[2]))
    }

    /// The Rodrigues vector as an array (which allocates; for OpenCV calls and tests).
    public var rvec: [Double] { [rotation.x, rotation.y, rotation.z] }
    /// The translation as an array.
    public var tvec: [Double] { [translation.x, translation.y, translation.z] }
}

/// Pose by PnP for square markers (IPPE, as OpenCV's solvePnP with SOLVEPNP_IPPE_SQUARE).
public struct MarkerPoseEstimator: Sendable {
    public let calibration: CameraCalibration
    /// The marker side, in the unit the poses are reported in.
    public let side: Double

    public init(calibration: CameraCalibration, side: Double) {
        self.calibration = calibration
        self.side = side
    }

    /// The estimator for pictures of `width` x `height`: the calibration scaled to them, or refused, by
    /// the rule of `CalibrationFit`.
    public func fitted(width: Int, height: Int) throws -> MarkerPoseEstimator {
        MarkerPoseEstimator(calibration: try calibration.fitted(width: width, height: height), side: side)
    }

    public func pose(of marker: MarkerDetection) throws -> MarkerPose {
        let c = marker.quad
        // Corners and results in tuples: no arrays.
        let corners = (c[0].x, c[0].y, c[1].x, c[1].y, c[2].x, c[2].y, c[3].x, c[3].y)
        var pose = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
        // Pinhole lenses by MarkerKit's own IPPE (no allocation); fisheye and tilted-sensor ones by OpenCV.
        let opencv = calibration.model == .fisheye || calibration.distortion.count == 14
        let status = withUnsafeBytes(of: corners) { input in
            withUnsafeMutableBytes(of: &pose) { output in
                let corners = input.bindMemory(to: Double.self).baseAddress, values = output.bindMemory(to: Double.self).baseAddress!
                let (k, d, n) = (calibration.cameraMatrix, calibration.distortion, Int32(calibration.distortion.count))
                return opencv ? cvb_solve_pnp_square(corners, side, k, d, n, calibration.bridgeModel, values, values + 3)
                              : mkk_solve_pnp_square(corners, side, k, d, n, values, values + 3)
            }
        }
        try Bridge.check(status)
        return MarkerPose(rotation: SIMD3(pose.0, pose.1, pose.2), translation: SIMD3(pose.3, pose.4, pose.5))
    }

    /// Projects points given in the marker's frame into the image.
    public func project(_ points: [(Double, Double, Double)], pose: MarkerPose) throws -> [Point2] {
        try calibration.project(points, pose: Pose3D(rvec: pose.rvec, tvec: pose.tvec))
    }
}

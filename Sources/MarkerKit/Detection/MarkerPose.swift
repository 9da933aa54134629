import Foundation
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

    /// The angle in degrees between this pose's rotation and `other`'s (through unit quaternions: no
    /// arrays, for every marker of every frame).
    public func degrees(from other: MarkerPose) -> Double {
        // The relative rotation q1* q2: its scalar part w and vector part v give the angle 2 atan2(|v|, |w|),
        // exact near zero where acos of the dot product loses half its digits.
        let p = UnitQuaternion.from(rotation), q = UnitQuaternion.from(other.rotation)
        let u = SIMD3(p.x, p.y, p.z), v = SIMD3(q.x, q.y, q.z)
        let w = p.w * q.w + (u * v).sum()
        let vector = p.w * v - q.w * u - MarkerKit.cross(u, v)
        return 2 * atan2((vector * vector).sum().squareRoot(), abs(w)) * 180 / .pi
    }

    /// The Rodrigues vector as an array (which allocates; for OpenCV calls and tests).
    public var rvec: [Double] { [rotation.x, rotation.y, rotation.z] }
    /// The translation as an array.
    public var tvec: [Double] { [translation.x, translation.y, translation.z] }
}

/// A square marker's two poses (IPPE's two solutions): four corners of a square fit two poses, mirror
/// images about the line of sight, and when the marker faces the camera or is small they reproject
/// almost equally well (the planar ambiguity). `chosen` is the pose reported, `other` the second; each
/// with its RMS reprojection error in pixels.
public struct MarkerPoses: Sendable, Equatable {
    public var chosen: MarkerPose
    public var other: MarkerPose
    public var chosenError: Double
    public var otherError: Double

    public init(chosen: MarkerPose, other: MarkerPose, chosenError: Double, otherError: Double) {
        self.chosen = chosen
        self.other = other
        self.chosenError = chosenError
        self.otherError = otherError
    }

    /// The other pose's error over the chosen one's (an error below 1e-6 px counts as 1e-6, so exact
    /// corners give a large finite ratio): near 1 the corners cannot tell the two poses apart; below 1
    /// after history chose the pose that reprojects worse.
    public var ratio: Double { otherError / max(chosenError, 1e-6) }

    /// Whether the corners alone cannot tell the two poses apart (`PoseHistory.ambiguousRatio`).
    public var isAmbiguous: Bool { min(ratio, 1 / ratio) * PoseHistory.ambiguousRatio > 1 }

    /// The same two poses, the other one chosen.
    public var swapped: MarkerPoses { MarkerPoses(chosen: other, other: chosen, chosenError: otherError, otherError: chosenError) }
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

    /// The pose that reprojects better (what cv::solvePnP with SOLVEPNP_IPPE_SQUARE returns).
    public func pose(of marker: MarkerDetection) throws -> MarkerPose { try poses(of: marker).chosen }

    /// Both poses, the one that reprojects better chosen.
    public func poses(of marker: MarkerDetection) throws -> MarkerPoses {
        let c = marker.quad
        // Corners and results in tuples: no arrays.
        let corners = (c[0].x, c[0].y, c[1].x, c[1].y, c[2].x, c[2].y, c[3].x, c[3].y)
        var p = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
        // Pinhole lenses by MarkerKit's own IPPE (no allocation); fisheye and tilted-sensor ones by OpenCV.
        let opencv = calibration.model == .fisheye || calibration.distortion.count == 14
        let status = withUnsafeBytes(of: corners) { input in
            withUnsafeMutableBytes(of: &p) { output in
                let corners = input.bindMemory(to: Double.self).baseAddress, values = output.bindMemory(to: Double.self).baseAddress!
                let (k, d, n) = (calibration.cameraMatrix, calibration.distortion, Int32(calibration.distortion.count))
                return opencv ? cvb_solve_pnp_square_both(corners, side, k, d, n, calibration.bridgeModel, values)
                              : mkk_solve_pnp_square_both(corners, side, k, d, n, values)
            }
        }
        try Bridge.check(status)
        return MarkerPoses(chosen: MarkerPose(rotation: SIMD3(p.0, p.1, p.2), translation: SIMD3(p.3, p.4, p.5)),
                           other: MarkerPose(rotation: SIMD3(p.7, p.8, p.9), translation: SIMD3(p.10, p.11, p.12)),
                           chosenError: p.6, otherError: p.13)
    }

    /// Projects points given in the marker's frame into the image.
    public func project(_ points: [(Double, Double, Double)], pose: MarkerPose) throws -> [Point2] {
        try calibration.project(points, pose: Pose3D(rvec: pose.rvec, tvec: pose.tvec))
    }
}

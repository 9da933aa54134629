import CVBridge
import Foundation

/// OpenCV's own stereo calibration (cv::stereoCalibrate, cv::fisheye::stereoCalibrate) on the corners two
/// cameras found in the same views: the reference a rig's joint solve is held to (tests, `verify calibration`).
public enum OpenCVStereo {
    public struct Solution: Sendable {
        public let first: CameraCalibration
        public let second: CameraCalibration
        /// x_2 = R x_1 + T.
        public let pose: Pose3D
        public let rms: Double
    }

    /// The views both cameras used, with all their corners (a chessboard's), solved by OpenCV from the two
    /// calibrations given: held fixed (`fixIntrinsic`, CALIB_FIX_INTRINSIC) or refined from them.
    public static func calibrate(_ a: Calibrator.Result, _ b: Calibrator.Result, first: CameraCalibration, second: CameraCalibration,
                                 fixIntrinsic: Bool) throws -> Solution {
        var object: [Double] = [], counts: [Int32] = [], one: [Double] = [], two: [Double] = []
        for (va, vb) in zip(a.views, b.views) where va.status == .used && vb.status == .used {
            // The corners both saw (all of a chessboard's; a ChArUco board's shared IDs).
            let shared = va.cornerIDs.indices.filter { vb.cornerIDs.contains(va.cornerIDs[$0]) }
            guard shared.count >= 4 else { continue }
            for i in shared {
                let id = va.cornerIDs[i], j = vb.cornerIDs.firstIndex(of: id)!
                let p = a.boardPoints[id]
                object += [p.0, p.1, p.2]
                one += [va.corners[i].x, va.corners[i].y]
                two += [vb.corners[j].x, vb.corners[j].y]
            }
            counts.append(Int32(shared.count))
        }
        guard counts.count >= 1 else { throw MarkerKitError.badInput("no view that both cameras used") }
        var k1 = first.cameraMatrix, k2 = second.cameraMatrix, d1 = first.distortion, d2 = second.distortion
        var r = [Double](repeating: 0, count: 9), t = [Double](repeating: 0, count: 3), rms = 0.0
        try Bridge.check(cvb_stereo_calibrate(object, counts, one, two, Int32(counts.count), Int32(first.imageWidth), Int32(first.imageHeight),
                                              first.model == .opencv8 ? CVB_MODEL_OPENCV8 : first.bridgeModel, &k1, &d1, &k2, &d2,
                                              Int32(d1.count), fixIntrinsic ? 1 : 0, &r, &t, &rms))
        let c1 = try CameraCalibration(name: first.name, model: first.model, cameraMatrix: k1, distortion: d1, imageWidth: first.imageWidth, imageHeight: first.imageHeight)
        let c2 = try CameraCalibration(name: second.name, model: second.model, cameraMatrix: k2, distortion: d2, imageWidth: second.imageWidth, imageHeight: second.imageHeight)
        return Solution(first: c1, second: c2, pose: Pose3D(rvec: Pose3D.rvec(from: r), tvec: t), rms: rms)
    }

    /// The solution as a two-camera rig (no covariance), to rectify or compare as a rig.
    public static func rig(_ s: Solution, units: String) throws -> CameraRig {
        try CameraRig(name: "opencv", cameras: [s.first, s.second], extrinsics: [Pose3D(rvec: [0, 0, 0], tvec: [0, 0, 0]), s.pose], units: units,
                      extrinsicCovariance: [Double](repeating: 0, count: 36), covariance: [], noise: 0, cameraRMS: [s.rms, s.rms], pairErrors: [],
                      views: 0, calibrationTime: "")
    }
}

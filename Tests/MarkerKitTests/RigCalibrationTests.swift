import Foundation
import Testing
@testable import MarkerKit

/// A rig solved jointly agrees with OpenCV's stereoCalibrate on OpenCV's own left/right sample set, its
/// rectification aligns rows as well as OpenCV's, and it round-trips through its file.
@Suite(.serialized) struct RigCalibrationTests {
    static let board = try! Checkerboard(innerColumns: 9, innerRows: 6, square: .mm(1))

    static func cameras(_ calibrator: Calibrator) throws -> [RigCalibrator.Camera] {
        let inputs = try RigInputs(folders: [Fixtures.url("chessboard-opencv-9x6").path, Fixtures.url("chessboard-opencv-9x6-right").path])
        return try inputs.cameras.indices.map { c in
            let found = try calibrator.findBoards(in: inputs.images[c])
            return RigCalibrator.Camera(name: ["left", "right"][c], views: found.views, width: found.width, height: found.height)
        }
    }

    static let sample = Result { () throws -> RigCalibrator.Result in
        let calibrator = Calibrator(board: board)
        return try RigCalibrator(calibrator: calibrator).calibrate(cameras: try cameras(calibrator), name: "pair")
    }

    /// Row error after rectification: the y difference of every corner both cameras saw (px), RMS and largest.
    static func rowError(_ r: StereoRectification, _ result: RigCalibrator.Result) throws -> (rms: Double, worst: Double) {
        var squares = 0.0, worst = 0.0, count = 0
        for (a, b) in zip(result.single[0].views, result.single[1].views) where a.status == .used && b.status == .used {
            let left = try r.rectified(a.corners, camera: 0), right = try r.rectified(b.corners, camera: 1)
            for (p, q) in zip(left, right) {
                squares += (p.y - q.y) * (p.y - q.y)
                worst = max(worst, abs(p.y - q.y))
                count += 1
            }
        }
        return ((squares / Double(count)).squareRoot(), worst)
    }

    @Test func theSamplePairAgreesWithOpenCVsStereoCalibrateWithinItsSigma() throws {
        let result = try Self.sample.get()
        let rig = result.rig
        #expect(rig.views == 13)
        let sigma = rig.extrinsicCovariance(of: 1)
        let sd = (0..<6).map { sigma[$0 * 7].squareRoot() }
        // OpenCV with the joint solve's intrinsics held (CALIB_FIX_INTRINSIC): the same objective, so the same R and T.
        let joint = try OpenCVStereo.calibrate(result.single[0], result.single[1], first: rig.cameras[0], second: rig.cameras[1], fixIntrinsic: true)
        // OpenCV refining everything from each camera's own calibration (CALIB_USE_INTRINSIC_GUESS): the joint solve's
        // objective but for its weights (each camera's corners by the inverse of their noise, alike here).
        let free = try OpenCVStereo.calibrate(result.single[0], result.single[1], first: result.single[0].calibration,
                                              second: result.single[1].calibration, fixIntrinsic: false)
        // OpenCV's sample workflow, intrinsics held where each camera's own calibration put them: a different
        // solve (the intrinsics cannot move), so R and T differ by about their sigma.
        let own = try OpenCVStereo.calibrate(result.single[0], result.single[1], first: result.single[0].calibration,
                                             second: result.single[1].calibration, fixIntrinsic: true)
        let e = rig.extrinsics[1]
        func ratios(_ p: Pose3D) -> [Double] { (0..<3).map { abs(p.rvec[$0] - e.rvec[$0]) / sd[$0] } + (0..<3).map { abs(p.tvec[$0] - e.tvec[$0]) / sd[3 + $0] } }
        print("measured: sample pair, OpenCV with the joint intrinsics held differs by \(ratios(joint.pose)) sigma, refining all by \(ratios(free.pose)), with each camera's own intrinsics held by \(ratios(own.pose))")
        #expect(ratios(joint.pose).allSatisfy { $0 < 0.01 })
        #expect(ratios(free.pose).allSatisfy { $0 < 0.1 })
        #expect(ratios(own.pose).allSatisfy { $0 < 4 })
        #expect(abs(joint.rms - rig.pairErrors[0].rms) < 1e-4)
        // OpenCV's sample reports T of about (-3.33, 0.04, 0) squares.
        #expect(abs(rig.baseline(of: 1) - 3.33) < 0.02)
    }

    @Test func rectifiedRowsAlignAsWellAsOpenCVs() throws {
        let result = try Self.sample.get()
        let ours = try Self.rowError(try StereoRectification(rig: result.rig), result)
        let own = try OpenCVStereo.calibrate(result.single[0], result.single[1], first: result.single[0].calibration,
                                             second: result.single[1].calibration, fixIntrinsic: true)
        let theirs = try Self.rowError(try StereoRectification(rig: try OpenCVStereo.rig(own, units: "mm")), result)
        let free = try OpenCVStereo.calibrate(result.single[0], result.single[1], first: result.single[0].calibration,
                                              second: result.single[1].calibration, fixIntrinsic: false)
        let theirsFree = try Self.rowError(try StereoRectification(rig: try OpenCVStereo.rig(free, units: "mm")), result)
        print("row error ours \(ours) opencv fixed \(theirs) opencv free \(theirsFree)")
        #expect(ours.rms <= theirs.rms && ours.rms <= theirsFree.rms * 1.001)
    }
}

extension RigCalibrationTests {
    /// Every lens model the rig solves for: OpenCV's stereoCalibrate (fisheye::stereoCalibrate for fisheye)
    /// with the joint solve's intrinsics held gives the same R and T, within a small part of their sigma.
    @Test(arguments: [CameraCalibration.Model.opencv4, .opencv8, .fisheye])
    func everyLensModelAgreesWithOpenCVsStereoCalibrate(model: CameraCalibration.Model) throws {
        var calibrator = Calibrator(board: Self.board)
        calibrator.model = model
        let result = try RigCalibrator(calibrator: calibrator).calibrate(cameras: try Self.cameras(calibrator), name: "pair")
        let rig = result.rig
        #expect(rig.cameras.allSatisfy { $0.model == model })
        let sigma = rig.extrinsicCovariance(of: 1), e = rig.extrinsics[1]
        let sd = (0..<6).map { sigma[$0 * 7].squareRoot() }
        let joint = try OpenCVStereo.calibrate(result.single[0], result.single[1], first: rig.cameras[0], second: rig.cameras[1], fixIntrinsic: true)
        let estimate = e.rvec + e.tvec, theirs = joint.pose.rvec + joint.pose.tvec
        let ratios: [Double] = (0..<6).map { (i: Int) -> Double in abs(theirs[i] - estimate[i]) / sd[i] }
        print("measured: \(model.rawValue) rig baseline \(rig.baseline(of: 1)), OpenCV with its intrinsics held differs by \(ratios.map { String(format: "%.2g", $0) }) sigma")
        #expect(ratios.allSatisfy { $0 < 0.05 })
        #expect(abs(rig.baseline(of: 1) - 3.33) < 0.02)
    }
}

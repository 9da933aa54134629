import Foundation
import Testing
@testable import MarkerKit

/// A rig's uncertainty means what it says: the sample pair's corners replaced by the solved rig's own
/// projections plus noise of the solve's size, solved again many times, scatter the baseline, the rotation
/// and a triangulated point as the covariance predicts.
@Suite(.serialized) struct RigUncertaintyTests {
    /// The views of each camera as the solved rig would see them, with Gaussian noise of `sigma` px.
    static func noisyCameras(_ result: RigCalibrator.Result, sigma: Double, random: inout SeededRandom) throws -> [RigCalibrator.Camera] {
        try result.rig.cameras.indices.map { c in
            let views = try result.single[c].views.indices.map { v -> Calibrator.View in
                let view = result.single[c].views[v]
                guard view.status == .used, let board = result.boardPoses[v] else { return Calibrator.View(file: view.file, status: .noBoard, corners: []) }
                let pose = RigMath.compose(board, then: result.rig.extrinsics[c])
                let ideal = try result.rig.cameras[c].project(view.cornerIDs.map { result.single[c].boardPoints[$0] }, pose: pose)
                return Calibrator.View(file: view.file, status: .used, corners: ideal.map { Point2(x: $0.x + sigma * random.gaussian(), y: $0.y + sigma * random.gaussian()) },
                                       cornerIDs: view.cornerIDs)
            }
            let camera = result.rig.cameras[c]
            return RigCalibrator.Camera(name: camera.name, views: views, width: camera.imageWidth, height: camera.imageHeight)
        }
    }

    static func std(_ values: [Double]) -> Double {
        let mean = values.reduce(0, +) / Double(values.count)
        return (values.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(values.count - 1)).squareRoot()
    }

    @Test func solvedAgainWithNewNoiseTheRigScattersAsItsCovarianceSays() throws {
        let result = try RigCalibrationTests.sample.get()
        let rig = result.rig
        let predicted = rig.poseSigma(of: 1)
        let point = try TriangulationUncertainty(rig: rig, distance: 100)
        var random = SeededRandom(seed: 33)
        var baselines: [Double] = [], angles: [Double] = [], ranges: [Double] = [], across: [[Double]] = []
        let line = TriangulationUncertainty.unit(point.point)
        for _ in 0..<100 {
            let again = try RigCalibrator(calibrator: Calibrator(board: RigCalibrationTests.board)).calibrate(
                cameras: try Self.noisyCameras(result, sigma: rig.noise, random: &random), name: "again").rig
            baselines.append(again.baseline(of: 1))
            angles.append(Pose3D.angleBetween(again.extrinsics[1].rvec, rig.extrinsics[1].rvec))
            let x = try again.triangulate(point.pixels.0, in: 0, point.pixels.1, in: 1)
            let d = (0..<3).map { x[$0] - point.point[$0] }
            let along = (0..<3).reduce(0.0) { $0 + d[$1] * line[$1] }
            ranges.append(along)
            across.append((0..<3).map { d[$0] - along * line[$0] })
        }
        // The rotation's scatter: the RMS angle over the trials against the predicted RMS (the trace's root).
        let rmsAngle = (angles.map { $0 * $0 }.reduce(0, +) / Double(angles.count)).squareRoot()
        let cov = rig.extrinsicCovariance(of: 1), traceAngle = (cov[0] + cov[7] + cov[14]).squareRoot() * 180 / .pi
        let baselineRatio = Self.std(baselines) / predicted.length, rotationRatio = rmsAngle / traceAngle
        let rangeRatio = Self.std(ranges) / point.calibration.range
        print(String(format: "measured: 100 re-solves, baseline sd %.5f vs predicted %.5f (ratio %.2f); rotation RMS %.4f° vs %.4f° (%.2f); range at 100 sd %.4f vs %.4f (%.2f); observation range sigma %.4f",
                     Self.std(baselines), predicted.length, baselineRatio, rmsAngle, traceAngle, rotationRatio, Self.std(ranges), point.calibration.range, rangeRatio,
                     point.observation.range))
        for ratio in [baselineRatio, rotationRatio, rangeRatio] { #expect((0.7...1.4).contains(ratio)) }
    }
}

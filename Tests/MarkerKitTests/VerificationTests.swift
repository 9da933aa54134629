import Foundation
import Testing
@testable import MarkerKit

/// Acceptance at test scale (the full runs are in the README): corner accuracy on clean renders,
/// recall against OpenCV and no wrong IDs on sampled renders, calibration recovered from rendered views.
@Suite struct VerificationTests {
    @Test func cleanRendersCornerAccuracyAgainstOpenCVSubpix() throws {
        let camera = BuiltInCamera.webcam(width: 640, height: 480)
        var sampler = MarkerSceneSampler(camera: camera, width: 640, height: 480, seed: 11)
        sampler.clean = true
        sampler.sizeRange = 50...300
        var verification = MarkerVerification(contenders: [.markerkit, .openCVSubpix], renders: 30, sampler: sampler)
        let trials = try verification.run()
        let ours = DetectorFigures(detector: "markerkit", trials: trials)
        let theirs = DetectorFigures(detector: "opencv-subpix", trials: trials)
        let rmse = try #require(ours.cornerRMSE), reference = try #require(theirs.cornerRMSE)
        print(String(format: "measured: 30 clean renders 50-300 px, corner RMSE markerkit %.4f px, OpenCV SUBPIX %.4f px", rmse, reference))
        #expect(ours.recall == 1)
        #expect(rmse <= 0.05)
        #expect(rmse <= reference / 2)
    }

    @Test func sampledRendersRecallAtLeastOpenCVAndNoWrongIDs() throws {
        let camera = BuiltInCamera.webcam(width: 640, height: 480)
        let sampler = MarkerSceneSampler(camera: camera, width: 640, height: 480, seed: 7)
        var verification = MarkerVerification(renders: 60, sampler: sampler)
        let trials = try verification.run()
        let summary = MarkerVerificationSummary(trials: trials, detectors: ["markerkit", "opencv", "opencv-subpix"], seed: 7,
                                                width: 640, height: 480, camera: camera.name)
        #expect(summary.overall[0].wrongIDs == 0 && summary.overall[0].falsePositives == 0)
        for bucket in summary.bySize.buckets where bucket.lower >= 20 {
            #expect(bucket.figures[0].recall >= bucket.figures[1].recall, "size \(bucket.label)")
        }
        #expect(summary.table.contains("by marker side"))
        // The same seed gives the same scenes.
        var again = MarkerVerification(contenders: [.markerkit], renders: 5, sampler: MarkerSceneSampler(camera: camera, width: 640, height: 480, seed: 7))
        #expect(try again.run().map(\.id) == trials.prefix(5).map(\.id))
    }

    @Test func calibrationFromRenderedViewsRecoversTheCamera() throws {
        // As `markerkit verify calibration` runs by default: 1280x720, 30 clean views, seed 7.
        let camera = BuiltInCamera.webcam(width: 1280, height: 720)
        let summary = try CalibrationVerification(camera: camera, width: 1280, height: 720, views: 30, seed: 7).run()
        print("measured: verify calibration 1280x720, 30 clean views\n" + summary.table)
        let ours = try #require(summary.pipelines.first)
        #expect(ours.viewsUsed == 30)
        #expect(ours.worstRelativeError < 0.1, "fx fy cx cy within 0.1%")
    }
}

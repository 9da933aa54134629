import Foundation
import Testing
@testable import MarkerKit

/// Chessboard corners fitted again with the blurred-corner model against the renders' truth: closer than
/// cornerSubPix's (auto window and OpenCV's sample's 11) on noisy, blurred views through a webcam lens and
/// through a strong one (k1 -0.4), every corner kept.
@Suite struct ChessboardCornerFitTests {
    @Test(arguments: ["webcam", "k1=-0.4"])
    func fittedCornersAreCloserToTheTruthThanCornerSubPixs(lens: String) throws {
        let (w, h) = (1280, 720)
        let camera = lens == "webcam" ? BuiltInCamera.webcam(width: w, height: h) : try CharucoDetectorTests.strongLens(width: w, height: h)
        var verification = try CalibrationVerification(camera: camera, width: w, height: h, views: 8, seed: 11)
        verification.noise = 3
        verification.blur = 0.8
        let renderer = SceneRenderer()
        var squares = (auto: 0.0, eleven: 0.0, fitted: 0.0), count = 0, moved = 0
        for scene in try verification.viewScenes() {
            let image = try renderer.render(scene)
            let truth = try SceneTruth.chessboardCorners(of: scene)[0]
            let auto = try #require(try ChessboardDetector(innerColumns: 9, innerRows: 6).detect(in: image))
            let eleven = try #require(try ChessboardDetector(innerColumns: 9, innerRows: 6, halfWindow: 11).detect(in: image))
            let fitted = ChessboardCornerFit().refine(auto, columns: 9, in: image)
            // OpenCV may number the board from either end.
            let reversed = auto[0].distance(to: truth[0]) > auto[0].distance(to: truth[truth.count - 1])
            let t = reversed ? Array(truth.reversed()) : truth
            for i in t.indices {
                squares.auto += pow(auto[i].distance(to: t[i]), 2)
                squares.eleven += pow(eleven[i].distance(to: t[i]), 2)
                squares.fitted += pow(fitted[i].point.distance(to: t[i]), 2)
                if fitted[i].point != auto[i] { moved += 1 }
                count += 1
            }
        }
        let rmse = (auto: (squares.auto / Double(count)).squareRoot(), eleven: (squares.eleven / Double(count)).squareRoot(),
                    fitted: (squares.fitted / Double(count)).squareRoot())
        print(String(format: "measured: chessboard corners (%@, noise 3, blur 0.8, %d corners): fitted RMSE %.4f px (%d fitted), cornerSubPix auto window %.4f, half window 11 %.4f",
                     lens, count, rmse.fitted, moved, rmse.auto, rmse.eleven))
        #expect(count == 8 * 54)
        #expect(moved == count)
        #expect(rmse.fitted < 0.8 * min(rmse.auto, rmse.eleven))
    }
}

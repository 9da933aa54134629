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
                squares.fitted += pow(fitted[i].distance(to: t[i]), 2)
                if fitted[i] != auto[i] { moved += 1 }
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

    /// A picture moved 0.3 px by bilinear interpolation (as a camera's scaler, a digital zoom or a remap
    /// does) is blurred by two taps, 0.7 and 0.3, whose mean is the move but whose median is not: fitted
    /// with a symmetric blur (`modelsSkew` false) the corners came out 0.034 px off on average in x and
    /// 0.031 in y, the same way in every view (cornerSubPix's 0.040 and 0.034), which a calibration
    /// takes for its lens. With the blur's skewness in the model they are 0.008 and 0.004 px off.
    @Test func aBilinearShiftMovesTheFittedCornersByTheShift() throws {
        let (w, h) = (640, 480)
        var verification = try CalibrationVerification(camera: BuiltInCamera.webcam(width: w, height: h), width: w, height: h, views: 12, seed: 11)
        verification.noise = 2
        let renderer = SceneRenderer(), shift = 0.3
        var sums = (fitted: (x: 0.0, y: 0.0), symmetric: (x: 0.0, y: 0.0)), count = 0
        for scene in try verification.viewScenes() {
            let image = Self.shifted(try renderer.render(scene), by: shift)
            let truth = try SceneTruth.chessboardCorners(of: scene)[0].map { Point2(x: $0.x - shift, y: $0.y - shift) }
            let found = try #require(try ChessboardDetector(innerColumns: 9, innerRows: 6).detect(in: image))
            let t = found[0].distance(to: truth[0]) > found[0].distance(to: truth[truth.count - 1]) ? Array(truth.reversed()) : truth
            var symmetric = ChessboardCornerFit()
            symmetric.modelsSkew = false
            for (i, (a, b)) in zip(ChessboardCornerFit().refine(found, columns: 9, in: image), symmetric.refine(found, columns: 9, in: image)).enumerated() {
                sums.fitted.x += a.x - t[i].x
                sums.fitted.y += a.y - t[i].y
                sums.symmetric.x += b.x - t[i].x
                sums.symmetric.y += b.y - t[i].y
                count += 1
            }
        }
        let n = Double(count)
        print(String(format: "measured: %d corners of a picture moved 0.3 px bilinearly: mean error %+.4f %+.4f px fitted with the skew, %+.4f %+.4f without",
                     count, sums.fitted.x / n, sums.fitted.y / n, sums.symmetric.x / n, sums.symmetric.y / n))
        #expect(count == 12 * 54)
        #expect(abs(sums.fitted.x / n) < 0.015 && abs(sums.fitted.y / n) < 0.015)
    }

    /// The picture sampled `shift` px further along x and y, bilinearly (edge pixels repeated).
    static func shifted(_ image: GrayImage, by shift: Double) -> GrayImage {
        let (w, h) = (image.width, image.height), whole = Int(shift.rounded(.down)), f = shift - Double(whole)
        func at(_ x: Int, _ y: Int) -> Double { Double(image[min(max(x, 0), w - 1), min(max(y, 0), h - 1)]) }
        var pixels = [UInt8](repeating: 0, count: w * h)
        for y in 0..<h {
            for x in 0..<w {
                let (u, v) = (x + whole, y + whole)
                let top = at(u, v) * (1 - f) + at(u + 1, v) * f, bottom = at(u, v + 1) * (1 - f) + at(u + 1, v + 1) * f
                pixels[y * w + x] = UInt8(max(0, min(255, (top * (1 - f) + bottom * f).rounded())))
            }
        }
        return GrayImage(width: w, height: h, pixels: pixels)
    }
}

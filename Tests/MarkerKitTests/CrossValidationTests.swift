import Foundation
import Testing
@testable import MarkerKit

/// Cross-validation says when the lens model cannot follow the lens. Views of a 9x6
/// board spread over the image (centres anywhere in its middle 80%, 350-700 mm away, tilted 10-45°) through
/// a known camera, their corners with 0.1 px of Gaussian noise: a pinhole lens (the webcam, opencv5 truth)
/// passes, a fisheye lens (equidistant, f 450 px on 1280x720) solved with opencv5 is flagged, and passes
/// again with the fisheye model.
@Suite struct CrossValidationTests {
    /// Board poses spread over the image and each view's true corners.
    static func poses(truth: CameraCalibration, board: Checkerboard, count: Int, seed: UInt64, random: inout SeededRandom) throws -> [(Scene, [Point2])] {
        var out: [(Scene, [Point2])] = []
        let s = board.square.millimetres
        let centre = (Double(board.innerColumns - 1) * s / 2, Double(board.innerRows - 1) * s / 2)
        while out.count < count {
            let pixel = Point2(x: random.uniform(0.1...0.9) * Double(truth.imageWidth), y: random.uniform(0.1...0.9) * Double(truth.imageHeight))
            let ray = try ProjectionDifference.rays(truth, [pixel])[0]
            let depth = random.uniform(350...700)
            let pose = Pose3D.held(centre: centre, at: (ray[0] / ray[2] * depth, ray[1] / ray[2] * depth, depth),
                                   tilt: random.uniform(10...45) * Double.pi / 180, axis: Double(out.count) * 2.4, spin: random.uniform(-0.3...0.3))
            let scene = Scene(camera: truth, width: truth.imageWidth, height: truth.imageHeight, targets: [Target(pattern: .checkerboard(board), pose: pose)])
            let corners = try SceneTruth.chessboardCorners(of: scene)[0]
            guard corners.allSatisfy({ $0.x > 5 && $0.y > 5 && $0.x < Double(truth.imageWidth) - 6 && $0.y < Double(truth.imageHeight) - 6 }) else { continue }
            out.append((scene, corners))
        }
        return out
    }

    /// The views' true corners with 0.1 px of Gaussian noise.
    static func views(truth: CameraCalibration, board: Checkerboard, count: Int, seed: UInt64) throws -> [Calibrator.View] {
        var random = SeededRandom(seed: seed)
        return try poses(truth: truth, board: board, count: count, seed: seed, random: &random).enumerated().map { k, view in
            Calibrator.View(file: "view\(k)", status: .used, corners: view.1.map { Point2(x: $0.x + 0.1 * random.gaussian(), y: $0.y + 0.1 * random.gaussian()) })
        }
    }

    /// The same on rendered images, the corners found by the calibrator's own chessboard search: 20 views
    /// 640x360 (a fisheye of f 225 px) with noise 2 and blur 0.5.
    @Test func onRendersTheFisheyeIsFlaggedAndTheWebcamIsNot() throws {
        let fisheye = try CameraCalibration(name: "fisheye", model: .fisheye, cameraMatrix: [225, 0, 320.5, 0, 225, 179.5, 0, 0, 1],
                                            distortion: [0.05, -0.02, 0.01, -0.003], imageWidth: 640, imageHeight: 360)
        let board = try Checkerboard(innerColumns: 9, innerRows: 6, square: .mm(30))
        let renderer = SceneRenderer()
        for (truth, lean) in [(BuiltInCamera.webcam(width: 640, height: 360), false), (fisheye, true)] {
            var random = SeededRandom(seed: 8)
            var degradations = Degradations()
            degradations.noise = 2
            degradations.blur = 0.5
            let images = try Self.poses(truth: truth, board: board, count: 20, seed: 8, random: &random).enumerated().map { k, view in
                var scene = view.0
                scene.degradations = degradations
                return (name: "view\(k)", image: try renderer.render(scene))
            }
            // A model that cannot follow the lens leaves the focal length loose: let the solve through, as the
            // cross-validation is what is tested here (calibrate refuses it, naming the fisheye model).
            var calibrator = Calibrator(board: board)
            calibrator.maxFocalUncertainty = .infinity
            let (found, w, h) = calibrator.findBoards(in: images)
            let result = try calibrator.calibrate(views: found, width: w, height: h, name: "rendered")
            let check = try CrossValidation.run(calibrator, result: result)
            print(String(format: "measured: cross-validation on renders, %@ lens, opencv5, %d of 20 views, RMS %.3f px, fx %.1f ± %.1f: ratio %.2f (%.3f px vs %.3f px)",
                         truth.name, result.used.count, result.calibration.provenance?.rms ?? .nan, result.calibration.fx,
                         result.calibration.provenance?.stdDeviations.first ?? .nan, check.ratio, check.medianDifference, check.medianAllowed))
            #expect(result.used.count >= 6, "cross-validation needs 6 views")
            #expect(check.modelTooLean == lean, "\(truth.name): \(check.verdict)")
        }
    }

    @Test func aTooLeanModelIsFlaggedAndAFittingOneIsNot() throws {
        let fisheye = try CameraCalibration(name: "fisheye", model: .fisheye, cameraMatrix: [450, 0, 641, 0, 450, 359, 0, 0, 1],
                                            distortion: [0.05, -0.02, 0.01, -0.003], imageWidth: 1280, imageHeight: 720)
        let board = try Checkerboard(innerColumns: 9, innerRows: 6, square: .mm(30))
        for (truth, model, lean) in [(BuiltInCamera.webcam(width: 1280, height: 720), CameraCalibration.Model.opencv5, false),
                                     (fisheye, .opencv5, true), (fisheye, .fisheye, false)] {
            for seed in [3, 4, 5] as [UInt64] {
                var calibrator = Calibrator(board: board)
                calibrator.model = model
                let result = try calibrator.calibrate(views: try Self.views(truth: truth, board: board, count: 20, seed: seed), width: 1280, height: 720,
                                                      name: "cross")
                let check = try CrossValidation.run(calibrator, result: result)
                print(String(format: "measured: cross-validation, %@ lens, %@ model, seed %d: halves differ %.3f px, uncertainty allows %.3f px, ratio %.2f",
                             truth.name, model.rawValue, seed, check.medianDifference, check.medianAllowed, check.ratio))
                #expect(check.modelTooLean == lean, "\(truth.name) \(model) seed \(seed): \(check.verdict)")
                if lean { #expect(check.verdict.contains("calibrate with the lens model opencv8")) }
            }
        }
    }

    /// Views taken while the autofocus hunted. Each view's camera is the webcam magnified about the
    /// pixel grid's middle by m = 1 + 0.0004 (focus - 30), as the fake C920's focus does, its focus drawn from
    /// 15-45 in view order. Split by focus, the halves are two lenses and the check says the lens moved; the
    /// same views split every other view give each half the same mixture, and the check passes them (why
    /// the split goes by focus). Views all at one focus are split every other view, as before.
    @Test func viewsAtSeveralFocusValuesAreSplitByFocus() throws {
        let board = try Checkerboard(innerColumns: 9, innerRows: 6, square: .mm(30))
        let truth = BuiltInCamera.webcam(width: 1280, height: 720)
        for seed in [3, 4, 5] as [UInt64] {
            var random = SeededRandom(seed: seed)
            var views: [Calibrator.View] = [], focus: [String: Int64] = [:]
            for (k, view) in try Self.poses(truth: truth, board: board, count: 20, seed: seed, random: &random).enumerated() {
                let f = Int64(random.uniform(15...45).rounded())
                let m = 1 + 0.0004 * Double(f - 30), w = Double(truth.imageWidth - 1) / 2, h = Double(truth.imageHeight - 1) / 2
                var k0 = truth.cameraMatrix
                k0[0] *= m; k0[4] *= m; k0[2] = (k0[2] - w) * m + w; k0[5] = (k0[5] - h) * m + h
                var scene = view.0
                scene.camera = try CameraCalibration(name: "focus\(f)", model: truth.model, cameraMatrix: k0, distortion: truth.distortion,
                                                     imageWidth: truth.imageWidth, imageHeight: truth.imageHeight)
                let corners = try SceneTruth.chessboardCorners(of: scene)[0]
                views.append(Calibrator.View(file: "/capture/view\(k).png", status: .used,
                                             corners: corners.map { Point2(x: $0.x + 0.1 * random.gaussian(), y: $0.y + 0.1 * random.gaussian()) }))
                focus["view\(k).png"] = f
            }
            let calibrator = Calibrator(board: board)
            let result = try calibrator.calibrate(views: views, width: 1280, height: 720, name: "hunted")
            let byFocus = try CrossValidation.run(calibrator, result: result, focus: focus)
            let alternate = try CrossValidation.run(calibrator, result: result)
            let held = try CrossValidation.run(calibrator, result: result, focus: focus.mapValues { _ in 30 })
            print(String(format: "measured: hunted focus, seed %d: split by focus %@ ratio %.2f; every other view ratio %.2f",
                         seed, "\(byFocus.focusRanges ?? [])", byFocus.ratio, alternate.ratio))
            #expect(byFocus.modelTooLean && byFocus.verdict.contains("the lens moved with the focus"), "\(byFocus.verdict)")
            #expect(byFocus.halves == [10, 10] && byFocus.focusRanges?[0][1] ?? 99 <= byFocus.focusRanges?[1][0] ?? 0)
            #expect(alternate.focusRanges == nil && held.focusRanges == nil && held.ratio == alternate.ratio)
        }
    }

    @Test func fewerThanSixViewsCannotBeCrossValidated() throws {
        let board = try Checkerboard(innerColumns: 9, innerRows: 6, square: .mm(30))
        let camera = BuiltInCamera.webcam(width: 1280, height: 720)
        let calibrator = Calibrator(board: board)
        let result = try calibrator.calibrate(views: try Self.views(truth: camera, board: board, count: 5, seed: 1), width: 1280, height: 720, name: "few")
        #expect(throws: MarkerKitError.self) { try CrossValidation.run(calibrator, result: result) }
    }
}

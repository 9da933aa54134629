import CVBridge
import Foundation
import Testing
@testable import MarkerKit

/// The renderer is exact: what it draws is where the camera model says.
@Suite struct RendererTests {
    static let pinhole = try! CameraCalibration(name: "ideal", model: .pinhole, cameraMatrix: [1000, 0, 319.5, 0, 1000, 239.5, 0, 0, 1],
                                                distortion: [], imageWidth: 640, imageHeight: 480)
    static let webcam = try! CameraCalibration(name: "webcam", model: .opencv5, cameraMatrix: [620, 0, 322.3, 0, 618, 241.7, 0, 0, 1],
                                               distortion: [-0.28, 0.09, 0.001, -0.0005, -0.01], imageWidth: 640, imageHeight: 480)
    /// Frontal: the marker's y axis up in the image, its z axis towards the camera.
    static let frontal = [Double.pi, 0, 0]

    @Test func anAxisAlignedEdgeLandsOnTheClosedForm() throws {
        let side = 50.0, depth = 400.0, offsetX = 3.1234
        let scene = Scene(camera: Self.pinhole, width: 640, height: 480, targets: [
            Target(pattern: .marker(id: 0, side: side, margin: 20), pose: Pose3D(rvec: Self.frontal, tvec: [offsetX, 0, depth])),
        ])
        let image = try SceneRenderer().render(scene)
        let d = scene.degradations
        // Closed form: the left outer edge at cx + fx (offset - side/2) / depth; its right edge likewise.
        let left = 319.5 + 1000 * (offsetX - side / 2) / depth
        let right = 319.5 + 1000 * (offsetX + side / 2) / depth
        var errors: [Double] = []
        for y in 200...280 {
            // Light area from a white pixel to a black border pixel, normalized, is the distance to the edge.
            let x0 = Int(left.rounded()) - 4
            let light = (x0..<(x0 + 8)).reduce(0.0) { $0 + (Double(image[$1, y]) - d.black) / (d.white - d.black) }
            errors.append(Double(x0) - 0.5 + light - left)
            let x1 = Int(right.rounded()) + 4
            let lightRight = ((x1 - 7)...x1).reduce(0.0) { $0 + (Double(image[$1, y]) - d.black) / (d.white - d.black) }
            errors.append((Double(x1) + 0.5 - lightRight) - right)
        }
        let worst = errors.map(abs).max()!
        print(String(format: "measured: axis-aligned edge vs closed form, worst %.4f px", worst))
        #expect(worst < 0.01)
    }

    /// Paper is printed on one side: a marker turned away from the camera shows nothing (it once showed
    /// its mirror image, which both detectors read as another ID).
    @Test func aMarkerSeenFromBehindIsNotDrawn() throws {
        func render(_ rvec: [Double]) throws -> GrayImage {
            try SceneRenderer().render(Scene(camera: Self.pinhole, width: 640, height: 480, targets: [
                Target(pattern: .marker(id: 5, side: 50, margin: 10), pose: Pose3D(rvec: rvec, tvec: [0, 0, 400])),
            ]))
        }
        let front = try render(Self.frontal)
        let back = try render([0, 0, 0]) // z away from the camera: its back
        #expect(Set(front.pixels).count > 2)
        #expect(Set(back.pixels) == [UInt8(Degradations().background)])
    }

    @Test func theLensIsInvertedExactly() throws {
        // Pixel -> undistorted ray -> projectPoints gives the pixel back.
        let c = Self.webcam
        let pixels: [Double] = [0, 0, 639, 0, 639, 479, 0, 479, 320, 240, 100.25, 400.75, -0.5, -0.5, 639.5, 479.5]
        var normalized = [Double](repeating: 0, count: pixels.count)
        #expect(cvb_undistort_points(pixels, Int32(pixels.count / 2), c.cameraMatrix, c.distortion, 5, CVB_MODEL_OPENCV5, &normalized) == 0)
        let points = (0..<(pixels.count / 2)).map { (normalized[2 * $0], normalized[2 * $0 + 1], 1.0) }
        let back = try SceneTruth.project(points, pose: Pose3D(rvec: [0, 0, 0], tvec: [0, 0, 0]), camera: c)
        for (i, p) in back.enumerated() {
            #expect(abs(p.x - pixels[2 * i]) < 1e-6 && abs(p.y - pixels[2 * i + 1]) < 1e-6, "pixel \(i): \(p)")
        }
    }

    @Test func truthCornersAreProjectPointsAndTheDetectorFindsThemThroughTheLens() throws {
        let pose = Pose3D(rvec: Pose3D.compose([0.35, -0.25, 0.4], then: Self.frontal), tvec: [-30, 20, 350])
        let scene = Scene(camera: Self.webcam, width: 640, height: 480, targets: [Target(pattern: .marker(id: 77, side: 60, margin: 15), pose: pose)])
        let truth = try #require(try SceneTruth.markers(of: scene).first)
        // The truth is cv::projectPoints of the marker's corners, called here directly.
        var direct = [Double](repeating: 0, count: 8)
        let h = 30.0
        #expect(cvb_project_model([-h, h, 0, h, h, 0, h, -h, 0, -h, -h, 0], 4, pose.rvec, pose.tvec, Self.webcam.cameraMatrix,
                                  Self.webcam.distortion, 5, CVB_MODEL_OPENCV5, &direct) == 0)
        for i in 0..<4 { #expect(truth.corners[i] == Point2(x: direct[2 * i], y: direct[2 * i + 1])) }
        let found = try MarkerDetector().detect(in: try SceneRenderer().render(scene))
        let marker = try #require(found.first { $0.id == 77 })
        let worst = zip(marker.corners, truth.corners).map { $0.distance(to: $1) }.max()!
        print(String(format: "measured: tilted marker through a distorting lens, worst corner error %.4f px", worst))
        #expect(worst < 0.1)
    }

    @Test func cornerSubPixShowsNoBiasOnARenderedCheckerboard() throws {
        let board = try Checkerboard(innerColumns: 9, innerRows: 6, square: .mm(25))
        let pose = Pose3D(rvec: [0.25, -0.3, 0.1], tvec: [-110, -60, 650])
        let scene = Scene(camera: Self.pinhole, width: 640, height: 480, targets: [Target(pattern: .checkerboard(board), pose: pose)])
        let truth = try #require(try SceneTruth.chessboardCorners(of: scene).first)
        let corners = try #require(try ChessboardDetector(innerColumns: 9, innerRows: 6).detect(in: try SceneRenderer().render(scene)))
        let n = Double(corners.count)
        let dx = zip(corners, truth).map { $0.x - $1.x }.reduce(0, +) / n
        let dy = zip(corners, truth).map { $0.y - $1.y }.reduce(0, +) / n
        let rmse = (zip(corners, truth).map { $0.distance(to: $1) * $0.distance(to: $1) }.reduce(0, +) / n).squareRoot()
        print(String(format: "measured: cornerSubPix on a noise-free render, mean bias (%.4f, %.4f) px, RMSE %.4f px", dx, dy, rmse))
        #expect(abs(dx) < 0.01 && abs(dy) < 0.01)
    }

    /// Tiles far from every target are background without looking for targets: the same image as
    /// looking for every target in every tile, through a distorting lens, with targets across tile edges,
    /// partly outside the image and partly behind the camera.
    @Test func skippingTilesOutsideTargetsChangesNoPixel() throws {
        let camera = BuiltInCamera.webcam(width: 400, height: 300)
        var sampler = MarkerSceneSampler(camera: camera, width: 400, height: 300, seed: 3)
        var scenes = try (0..<4).map { _ in try sampler.next().scene }
        var wide = scenes[0]
        wide.targets.append(Target(pattern: .paper(width: 3000, height: 200), pose: Pose3D(rvec: [Double.pi * 0.6, 0, 0], tvec: [0, 0, 100])))
        wide.targets.append(Target(pattern: .text(lines: ["AB 12", "XYZ"], height: 8, ink: 0.1),
                                   pose: Pose3D(rvec: [Double.pi, 0, 0], tvec: [-60, -40, 300])))
        scenes.append(wide)
        let everywhere = SceneRenderer()
        everywhere.skipsTilesOutsideTargets = false
        let renderer = SceneRenderer()
        for (i, scene) in scenes.enumerated() {
            #expect(try renderer.render(scene).pixels == everywhere.render(scene).pixels, "scene \(i)")
        }
    }

    /// A lens model that folds back inside the image (k1 = -0.4 with the webcam's k2 on 1280x720: no ray
    /// reaches beyond a distorted radius of 0.66, the image's corners are at 0.73) leaves the image's
    /// corners black, as beyond a real lens's image circle, instead of a folded copy of the scene (which
    /// once gave a ChArUco corner 50 px from the true one); the middle is drawn as before.
    @Test func pixelsNoRayReachesAreBlack() throws {
        var camera = BuiltInCamera.webcam(width: 1280, height: 720)
        camera.distortion[0] = -0.4
        let board = try CharucoBoard(squaresX: 10, squaresY: 7, square: .mm(30), marker: .mm(22))
        // The board fills the view, far larger than the image.
        let pose = Pose3D.held(centre: (150, 105), at: (0, 0, 150), tilt: 0, axis: 0, spin: 0)
        var degradations = Degradations()
        degradations.background = 110
        let scene = Scene(camera: camera, width: 1280, height: 720, targets: [Target(pattern: .charuco(board), pose: pose)], degradations: degradations)
        let image = try SceneRenderer().render(scene)
        #expect(image[0, 0] == 0 && image[1279, 0] == 0 && image[0, 719] == 0 && image[1279, 719] == 0)
        #expect(image[640, 0] != 0 || image[640, 1] != 0, "the top middle is inside the image circle")
        let dark = (0..<720).reduce(0) { n, y in n + (0..<1280).filter { image[$0, y] == 0 }.count }
        print("measured: k1 -0.4 on 1280x720: \(dark) pixels (\(String(format: "%.1f", 100 * Double(dark) / (1280 * 720)))%) beyond the lens's image")
        #expect(dark > 1000 && dark < 1280 * 720 / 5)
        // Without a fold the corners show the scene.
        let mild = Scene(camera: BuiltInCamera.webcam(width: 1280, height: 720), width: 1280, height: 720, targets: [], degradations: degradations)
        #expect(try SceneRenderer().render(mild)[0, 0] == 110)
    }

    /// Print beside a marker (patches, text, a card) is drawn where its pattern says, and only the marker
    /// is in the truth and found.
    @Test func printBesideAMarkerIsDrawnAndIsNotInTheTruth() throws {
        // 2 px per mm, frontal: (u, v) mm at offset (tx, 0) shows at x = 319.5 + 2 (u + tx), y = 239.5 - 2 v.
        func at(_ tx: Double) -> Pose3D { Pose3D(rvec: Self.frontal, tvec: [tx, 0, 500]) }
        let scene = Scene(camera: Self.pinhole, width: 640, height: 480, targets: [
            Target(pattern: .marker(id: 5, side: 40, margin: 5), pose: at(0)),
            Target(pattern: .patches(columns: 2, rows: 1, patch: 10, gap: 2, levels: [0.2, 0.6]), pose: at(-50)),
            Target(pattern: .text(lines: ["L"], height: 14, ink: 0), pose: at(50)),
            Target(pattern: .paper(width: 150, height: 60), pose: at(0).offset(by: (0, 0, -0.2))),
        ])
        let image = try SceneRenderer().render(scene)
        // Patches over x 197.5-217.5 and 221.5-241.5, y 229.5-249.5: 30 + 195 level.
        #expect(image[207, 239] == 69 && image[231, 239] == 147)
        #expect(image[219, 239] == 225, "paper between the patches")
        // "L": the top left dot (x 409.5-413.5, y 225.5-229.5) is ink, the dot two right and two down paper.
        #expect(image[411, 227] == 30 && image[419, 235] == 225)
        // The card behind: paper between them, background beyond.
        #expect(image[380, 200] == 225 && image[20, 20] == 110)
        let truth = try SceneTruth.markers(of: scene)
        #expect(truth.map(\.id) == [5])
        #expect(try MarkerDetector().detect(in: image).map(\.id) == [5])
    }
}

import Foundation
import Testing
@testable import MarkerKit

/// `generate charuco`: the sheet and its board spec, which reads back as the same board; bad values
/// refused with one line; calibrate and detect with ChArUco renders, and bad ChArUco inputs.
@Suite struct CharucoCLITests {
    @Test func generateWritesTheSheetAndASpecThatReadsBackAsTheSameBoard() throws {
        let dir = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let result = try CLI.run(["generate", "charuco", "--squares", "6x8", "--square", "25mm", "--marker", "18mm",
                                  "--dictionary", "5x5_100", "--first-id", "10", "--legacy", "-o", "c.pdf"], in: dir)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(FileManager.default.fileExists(atPath: dir.appendingPathComponent("c.pdf").path))
        let url = dir.appendingPathComponent("c.json")
        let spec = try BoardSpec.decode(Data(contentsOf: url), source: url.path)
        #expect(spec.type == "charuco" && spec.layout == "opencv-legacy" && spec.firstSquare == "white" && spec.units == "mm")
        let expected = try CharucoBoard(squaresX: 6, squaresY: 8, square: .mm(25), marker: .mm(18), dictionary: .dict5x5_100,
                                        firstID: 10, legacy: true)
        #expect(try spec.charucoBoard() == expected)
        let again = try CLI.run(["generate", "charuco", "--squares", "6x8", "--square", "25mm", "--marker", "18mm", "-o", "c.pdf"], in: dir)
        #expect(again.status == 73 && again.stderr.contains("exists: add --force"), "\(again.stderr)")
    }

    @Test(arguments: [
        (["--squares", "1x7", "--square", "20mm", "--marker", "15mm"], "'--squares <cols x rows>'"),
        (["--squares", "5x7", "--square", "20mm", "--marker", "20mm"], "must be smaller than the square"),
        (["--squares", "5x7", "--square", "20mm", "--marker", "15"], "'--marker <length>'"),
        (["--squares", "5x7", "--square", "20mm", "--marker", "15mm", "--dictionary", "5x5_50", "--first-id", "40"], "do not fit in DICT_5X5_50"),
        (["--squares", "5x7", "--square", "40mm", "--marker", "20mm"], "does not fit on A4"),
        (["--squares", "5x7", "--square", "20mm", "--marker", "15mm", "--first-id=-1"], "first marker ID must be 0 or more"),
    ])
    func badValuesAreRefusedWithOneLineAndNoFile(arguments: [String], message: String) throws {
        let dir = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let result = try CLI.run(["generate", "charuco"] + arguments + ["-o", "c.pdf"], in: dir)
        #expect(result.status == 64, "\(arguments): \(result.stderr)")
        #expect(result.stderr.contains(message) && result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).isEmpty)
    }

    static func png(_ image: GrayImage) throws -> Data {
        try Frame(width: image.width, height: image.height, stride: image.width, format: .gray8, bytes: image.pixels).encoded(as: "png")
    }

    static let board = try! CharucoBoard(squaresX: 10, squaresY: 7, square: .mm(30), marker: .mm(22))

    /// Eight 800x600 renders of the board, each leaving part of it outside the image, and its spec.
    static func renders(in dir: URL) throws -> CameraCalibration {
        let camera = BuiltInCamera.webcam(width: 800, height: 600)
        let scenes = try CharucoViews(board: board, camera: camera, width: 800, height: 600, partial: true).scenes(count: 8, seed: 11)
        let renderer = SceneRenderer()
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("views"), withIntermediateDirectories: true)
        for (i, scene) in scenes.enumerated() {
            try Self.png(renderer.render(scene)).write(to: dir.appendingPathComponent(String(format: "views/view_%02d.png", i)))
        }
        let page = PageSize(name: "A3", width: .mm(297), height: .mm(420))
        try BoardSpec(charuco: board, page: page, origin: (0, 0)).encoded().write(to: dir.appendingPathComponent("board.json"))
        for (name, other) in [("wrong-dictionary", try CharucoBoard(squaresX: 10, squaresY: 7, square: .mm(30), marker: .mm(22), dictionary: .dict5x5_100)),
                              ("other-board", try CharucoBoard(squaresX: 10, squaresY: 7, square: .mm(30), marker: .mm(22), firstID: 200)),
                              ("wrong-squares", try CharucoBoard(squaresX: 7, squaresY: 10, square: .mm(30), marker: .mm(22)))] {
            try BoardSpec(charuco: other, page: page, origin: (0, 0)).encoded().write(to: dir.appendingPathComponent("\(name).json"))
        }
        return camera
    }

    @Test func calibrateAndDetectReadChArUcoViewsThatLeaveTheImage() throws {
        let dir = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let truth = try Self.renders(in: dir)
        let result = try CLI.run(["calibrate", "views", "--board", "board.json", "-o", "cal.json", "--report", "report.pdf"], in: dir)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("calibrated from 8 of 8 images"), "\(result.stdout)")
        let calibration = try CameraCalibration.read(from: dir.appendingPathComponent("cal.json"))
        for (estimate, real) in [(calibration.fx, truth.fx), (calibration.fy, truth.fy), (calibration.cx, truth.cx), (calibration.cy, truth.cy)] {
            #expect(abs(estimate - real) / real < 0.002, "\(estimate) vs \(real)")
        }
        #expect(FileManager.default.fileExists(atPath: dir.appendingPathComponent("report.pdf").path))
        let detect = try CLI.run(["detect", "views/view_00.png", "--board", "board.json", "--json", "-"], in: dir)
        #expect(detect.status == 0, "\(detect.stderr)")
        let report = try JSONDecoder().decode(DetectionReport.self, from: Data(detect.stdout.utf8))
        let corners = try #require(report.frames.first?.board)
        #expect(corners.type == "charuco" && corners.total == 54 && corners.corners.count >= 12)
    }

    @Test func aSpecThatDoesNotMatchTheImagesIsRefusedWithOneLineAndNothingStored() throws {
        let dir = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        _ = try Self.renders(in: dir)
        try Data("{\"format\": \"markerkit-board\", \"type\": \"charuco\"}".utf8).write(to: dir.appendingPathComponent("malformed.json"))
        for (spec, message) in [("wrong-dictionary.json", "no image shows the 10x7 ChArUco board (DICT_5X5_100"),
                                ("other-board.json", "no image shows the 10x7 ChArUco board (DICT_ARUCO_ORIGINAL from ID 200"),
                                ("wrong-squares.json", " shows "),
                                ("malformed.json", "malformed.json")] {
            let result = try CLI.run(["calibrate", "views", "--board", spec, "-o", "cal.json"], in: dir)
            #expect([65, 66].contains(result.status), "\(spec): \(result.status) \(result.stderr)")
            #expect(result.stderr.contains(message) && result.stderr.split(separator: "\n").count == 1, "\(spec): \(result.stderr)")
            #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("cal.json").path))
        }
        // Too few corners: a view of a corner of the board alone.
        let camera = BuiltInCamera.webcam(width: 800, height: 600)
        // The board's top-left corner near the image's bottom-right: 4 of its corners in the image.
        let pose = Pose3D(rvec: [0, 0, 0], tvec: [119, 74, 300])
        let image = try SceneRenderer().render(Scene(camera: camera, width: 800, height: 600, targets: [Target(pattern: .charuco(Self.board), pose: pose)]))
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("few"), withIntermediateDirectories: true)
        for i in 0..<3 { try Self.png(image).write(to: dir.appendingPathComponent("few/\(i).png")) }
        let few = try CLI.run(["calibrate", "few", "--board", "board.json", "-o", "cal.json"], in: dir)
        #expect(few.status == 65 && few.stderr.contains("6 or more corners"), "\(few.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("cal.json").path))
    }

    /// `render --board` writes views of a board with their truth (corners by ID, the markers in view);
    /// `verify board --truth` scores board corners on it and `verify markers --truth` the markers.
    @Test func renderedBoardSetsAreMeasuredByVerifyBoard() throws {
        let dir = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let render = try CLI.run(["render", "--board", "charuco", "--count", "3", "--size", "640x480", "--k1", "-0.4", "--bend", "2mm",
                                  "--blur", "0.6", "--noise", "1", "-o", "set"], in: dir)
        #expect(render.status == 0, "\(render.stderr)")
        #expect(render.stdout.contains("rendered 3 views of the ChArUco 10x7 squares of 30 mm"), "\(render.stdout)")
        let truth = try RenderTruthFile.read(from: dir.appendingPathComponent("set/truth.json"))
        #expect(try truth.board?.charucoBoard() == Self.board && truth.camera.distortionCoefficients[0] == -0.4)
        #expect(truth.scenes.allSatisfy { ($0.boardCorners?.ids.count ?? 0) >= 6 && !$0.markers.isEmpty && abs(($0.boardSag ?? 0) - 2) < 1e-6 })
        let verify = try CLI.run(["verify", "board", "--truth", "set", "--json", "v.json"], in: dir)
        #expect(verify.status == 0, "\(verify.stderr)")
        let accuracy = try JSONDecoder().decode(CharucoCornerAccuracy.self, from: Data(contentsOf: dir.appendingPathComponent("v.json")))
        let ours = try #require(accuracy.rows.first { $0.pipeline == "markerkit" })
        let opencv = accuracy.rows.filter { $0.pipeline.hasPrefix("opencv") }
        print(String(format: "measured: verify board on 3 renders (k1 -0.4, bent 2 mm, blur 0.6, noise 1): MarkerKit %d of %d RMSE %.4f px; OpenCV best %d, RMSE %.4f px less its half pixel",
                     ours.found, ours.truth, ours.rmse, opencv.map(\.found).max() ?? 0, opencv.map(\.rmse).min() ?? .nan))
        #expect(ours.wrong == 0 && ours.rmse <= 0.05 && opencv.count == 4)
        #expect(opencv.allSatisfy { ours.found >= $0.found && ours.rmse <= 0.5 * $0.rmse })
        let markers = try CLI.run(["verify", "markers", "--truth", "set"], in: dir)
        #expect(markers.status == 0 && markers.stdout.contains("markers in set/truth.json"), "\(markers.stderr)")
        // A folder of single-marker renders holds no board; --bend needs a board.
        #expect(try CLI.run(["render", "--count", "1", "--size", "320x240", "-o", "plain"], in: dir).status == 0)
        let plain = try CLI.run(["verify", "board", "--truth", "plain"], in: dir)
        #expect(plain.status == 65 && plain.stderr.contains("holds no board") && plain.stderr.split(separator: "\n").count == 1, "\(plain.stderr)")
        let bend = try CLI.run(["render", "--bend", "2mm", "--count", "1", "-o", "b"], in: dir)
        #expect(bend.status == 64 && bend.stderr.contains("--bend goes with --board"), "\(bend.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("b").path))
    }

    /// The capture assistant on a clip of a ChArUco board that leaves the image in every view: it keeps
    /// views by the corners they show, counts which image corners the board reached, and the views it kept
    /// calibrate the camera.
    @Test func theAssistantCapturesAChArUcoClipLeavingTheImage() throws {
        let dir = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let render = try CLI.run(["render", "--clip", "11", "--board", "charuco", "--size", "480x360", "-o", "clip.avi"], in: dir)
        #expect(render.status == 0, "\(render.stderr)")
        let result = try CLI.run(["capture", "--device", "clip.avi", "--out", "views", "--board", "clip.json", "--auto", "--count", "8",
                                  "--calibrate", "charuco"], in: dir)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("saved 8 frames"), "\(result.stdout)")
        let (log, images) = try CaptureLog.read(from: dir.appendingPathComponent("views/capture.json"))
        #expect(images.count == 8 && log.charuco != nil && log.images.allSatisfy { $0.parameters != nil })
        let camera = BuiltInCamera.webcam(width: 480, height: 360)
        let stored = try CameraCalibration.read(from: dir.appendingPathComponent("Calibrations/charuco.yaml"))
        let error = max(abs(stored.fx - camera.fx) / camera.fx, abs(stored.cx - camera.cx) / camera.cx)
        print(String(format: "measured: capture assistant on a ChArUco clip leaving the image, 8 views, fx %.3f vs %.3f, cx %.3f vs %.3f", stored.fx, camera.fx, stored.cx, camera.cx))
        #expect(error < 0.005)
    }
}

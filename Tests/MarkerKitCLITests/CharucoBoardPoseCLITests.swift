import Foundation
import Testing
@testable import MarkerKit

/// `detect --board charuco.json --calibration cam.yml`: the board's pose from its corners, with no
/// --marker-size (the spec gives the markers' side).
@Suite struct CharucoBoardPoseCLITests {
    @Test func detectGivesTheBoardsPoseFromASpecAndACalibration() throws {
        let dir = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let board = try CharucoBoard(squaresX: 7, squaresY: 9, square: .mm(30), marker: .mm(22))
        let camera = BuiltInCamera.webcam(width: 1280, height: 720)
        let pose = Pose3D.held(centre: (105, 135), at: (30, 10, 650), tilt: 0.6, axis: 2.0, spin: -0.2)
        var degradations = Degradations()
        degradations.noise = 2
        let image = try SceneRenderer().render(Scene(camera: camera, width: 1280, height: 720,
                                                     targets: [Target(pattern: .charuco(board), pose: pose)], degradations: degradations))
        try Frame(width: 1280, height: 720, stride: 1280, format: .gray8, bytes: image.pixels).encoded(as: "png")
            .write(to: dir.appendingPathComponent("board.png"))
        try BoardSpec(charuco: board).encoded().write(to: dir.appendingPathComponent("board.json"))
        try CalibrationFormat.opencvYAML.encode(camera).write(to: dir.appendingPathComponent("cam.yml"))
        let run = try CLI.run(["detect", "board.png", "--board", "board.json", "--calibration", "cam.yml", "--json", "d.json"], in: dir)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(!run.stderr.contains("poses need both"), "the spec stands for --marker-size")
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: dir.appendingPathComponent("d.json"))) as? [String: Any]
        let frame = try #require((json?["frames"] as? [[String: Any]])?.first)
        let target = try #require(frame["target"] as? [String: Any], "a target pose")
        let reported = try #require(target["pose"] as? [String: Any])
        let rvec = try #require(reported["rvec"] as? [Double]), tvec = try #require(reported["tvec"] as? [Double])
        let error = MarkerPose(rvec: rvec, tvec: tvec).degrees(from: MarkerPose(rvec: pose.rvec, tvec: pose.tvec))
        let distance = zip(tvec, pose.tvec).map { ($0 - $1 / 1000) * ($0 - $1 / 1000) }.reduce(0, +).squareRoot() / 0.65
        print("measured: detect --board on a rendered ChArUco board (34 degrees, 650 mm, noise 2): \(target["corners"] ?? 0) corners, rotation error \(error) degrees, translation \(100 * distance)% of the distance")
        #expect((target["corners"] as? Int ?? 0) >= 40 && error < 0.2 && distance < 0.003)
        // Every marker found has its own pose too (22 mm from the spec).
        let markers = try #require(frame["markers"] as? [[String: Any]])
        #expect(markers.count >= 20 && markers.allSatisfy { ($0["pose"] as? [String: Any])?["unit"] as? String == "m" })
    }
}

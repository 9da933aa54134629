import Foundation
import Testing
@testable import MarkerKit

/// `detect --board` with a checkerboard spec: OpenCV's 13 left sample photos (9x6 inner corners), calibrated
/// from themselves, each with its 54 corners and the board's pose from them, its sigma beside it.
@Suite struct CheckerboardPoseCLITests {
    @Test func aCheckerboardsPoseComesFromItsCorners() throws {
        let dir = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let photos = try FileManager.default.contentsOfDirectory(atPath: CalibrateCLITests.boards.path).filter { $0.hasPrefix("left") }.sorted()
            .map { CalibrateCLITests.boards.appendingPathComponent($0).path }
        #expect(photos.count == 13)
        let spec = try CLI.run(["generate", "checkerboard", "--inner", "9x6", "--square", "25mm", "--spec-only", "-o", "board.json"], in: dir)
        #expect(spec.status == 0, "\(spec.stderr)")
        let calibrated = try CLI.run(["calibrate"] + photos + ["--board", "board.json", "--output", "cal.yml"], in: dir)
        #expect(calibrated.status == 0, "\(calibrated.stderr)")
        let run = try CLI.run(["detect"] + photos + ["--board", "board.json", "--calibration", "cal.yml", "--json", "d.json"], in: dir)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.components(separatedBy: "; board corners: 54; the board's pose").count == 14, "\(run.stdout)")
        let report = try JSONDecoder().decode(DetectionReport.self, from: Data(contentsOf: dir.appendingPathComponent("d.json")))
        var errors: [Double] = [], sigmas: [Double] = []
        for frame in report.frames {
            #expect(frame.board?.type == "checkerboard" && frame.board?.corners.count == 54 && frame.board?.total == 54)
            let target = try #require(frame.target, "\(frame.source)")
            #expect(target.corners == 54 && target.markers.isEmpty)
            errors.append(try #require(target.pose.error))
            sigmas.append(try #require(target.pose.sigma).rotation)
            // 25 mm squares: the board 0.25-0.45 m away.
            let distance = (target.pose.translation * target.pose.translation).sum().squareRoot()
            #expect(distance > 0.25 && distance < 0.45, "\(frame.source): \(distance) m")
        }
        print("measured: OpenCV's 13 left photos: board pose RMS reprojection \(errors.min()!)-\(errors.max()!) px, rotation sigma \(sigmas.min()!)-\(sigmas.max()!) degrees")
        #expect(errors.allSatisfy { $0 < 0.3 } && sigmas.allSatisfy { $0 > 0.005 && $0 < 0.3 })
    }

    /// detect's line for a video with a ChArUco board and a calibration says in how many frames the board's
    /// pose was found (it said nothing of the pose, as if there were none).
    @Test func aBoardVideosLineCountsItsPoses() throws {
        let dir = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let folder = CalibrateCLITests.fixtures.appendingPathComponent("charuco-video-caliscope")
        let run = try CLI.run(["detect", folder.appendingPathComponent("board-inverted.mp4").path, "--board", folder.appendingPathComponent("board.json").path,
                               "--calibration", folder.appendingPathComponent("intrinsics.yml").path], in: dir)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.hasSuffix("684 board corners; the board's pose in 57 frames\n"), "\(run.stdout)")
    }
}

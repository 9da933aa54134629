import Foundation
import Testing
@testable import MarkerKit

/// `markerkit capture` and `markerkit track` without a camera: the error paths of a missing or wrong
/// device, a video file standing in for the camera, and the capture assistant on a rendered clip.
@Suite struct CaptureCLITests {
    static let single = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/aruco-original-photos/single")

    static let badCases: [(arguments: [String], status: Int32, says: String)] = [
        (["capture", "--device", "/dev/video-absent-9", "--out", "o", "--every", "1"], 66, "see markerkit capture --list"),
        (["capture", "--device", "/dev/null", "--out", "o", "--every", "1"], 65, "is not a V4L2 video device"),
        (["track", "--device", "/dev/video-absent-9", "--calibration", "cam.yml", "--marker-size", "5cm"], 66, "see markerkit capture --list"),
        (["track", "--device", "/dev/null", "--calibration", "cam.yml", "--marker-size", "5cm"], 65, "is not a V4L2 video device"),
        (["track", "--device", "nothing.avi", "--calibration", "cam.yml", "--marker-size", "5cm"], 66, "no camera, video or image folder"),
        (["track", "--device", "/dev/null", "--calibration", "cam.yml", "--marker-size", "5"], 64, "has no unit"),
        (["track", "--device", "/dev/null", "--calibration", "cam.yml", "--marker-size", "5cm", "--rotate", "45"], 64, "--rotate 45"),
        (["capture", "--device", "/dev/video-absent-9", "--out", "o", "--format", "h264", "--every", "1"], 64, "'h264' is invalid for '--format <format>'"),
        (["capture", "--device", "/dev/video-absent-9", "--out", "o", "--auto"], 64, "--auto needs --board"),
        (["capture", "--out", "o"], 64, "give --device"),
        (["capture", "--device", "/dev/video-absent-9", "--out", "o"], 64, "give --every"),
    ]

    @Test(arguments: 0..<badCases.count)
    func absentAndWrongDevicesGetOneLine(index: Int) throws {
        let (arguments, status, says) = Self.badCases[index]
        let dir = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try FileManager.default.copyItem(at: Self.single.appendingPathComponent("intrinsics.yml"), to: dir.appendingPathComponent("cam.yml"))
        let result = try CLI.run(arguments, in: dir)
        #expect(result.status == status, "\(arguments): \(result.stderr)")
        #expect(result.stderrLines.count == 1, "\(arguments): \(result.stderr)")
        #expect(result.stderr.hasPrefix("markerkit: error: ") && result.stderr.contains(says), "\(arguments): \(result.stderr)")
        #expect(try files(in: dir) == ["cam.yml"], "nothing created")
    }

    @Test func listingWithoutCamerasSaysSo() throws {
        let dir = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let result = try CLI.run(["capture", "--list"], in: dir)
        #expect(result.status == 0)
        let cameras = V4L2Device.deviceNodes()
        if cameras.isEmpty {
            #expect(result.stdout.contains("no video devices"))
        } else {
            #expect(cameras.allSatisfy { result.stdout.contains($0) })
        }
    }

    @Test func trackOnTheVideoMatchesDetect() throws {
        let dir = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let video = Self.single.appendingPathComponent("video.avi").path, calibration = Self.single.appendingPathComponent("intrinsics.yml").path
        let track = try CLI.run(["track", "--device", video, "--calibration", calibration, "--marker-size", "5cm", "--jsonl", "track.jsonl",
                                 "--record", "tracked.avi"], in: dir)
        #expect(track.status == 0, "\(track.stderr)")
        let detect = try CLI.run(["detect", video, "--calibration", calibration, "--marker-size", "5cm", "--jsonl"], in: dir)
        let tracked = try String(contentsOf: dir.appendingPathComponent("track.jsonl"), encoding: .utf8)
        #expect(tracked == detect.stdout, "track and detect report the same frames")
        let lines = tracked.split(separator: "\n")
        #expect(lines.count == 145)
        var detections = 0
        var ids = Set<Int>()
        for line in lines {
            let frame = try JSONSerialization.jsonObject(with: Data(line.utf8)) as! [String: Any]
            for marker in frame["markers"] as! [[String: Any]] { detections += 1; ids.insert(marker["id"] as! Int) }
        }
        print("measured: track on video.avi, \(detections) detections, IDs \(ids.sorted())")
        #expect(detections >= 778)
        #expect(ids == [101, 601, 701, 801, 901, 1001])
        #expect(track.stdout.contains("145 frames") && track.stdout.contains("0 dropped"))
        #expect(FileManager.default.fileExists(atPath: dir.appendingPathComponent("tracked.avi").path))
    }

    /// A new webcam has no calibration yet: `track` without one reports IDs and corners, frame for frame
    /// those of `detect` (which then has none either), and no pose.
    @Test func trackWithoutCalibrationGivesIDsAndCorners() throws {
        let dir = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let video = Self.single.appendingPathComponent("video.avi").path
        let track = try CLI.run(["track", "--device", video, "--jsonl", "-"], in: dir)
        #expect(track.status == 0, "\(track.stderr)")
        let detect = try CLI.run(["detect", video, "--jsonl"], in: dir)
        #expect(track.stdout == detect.stdout)
        #expect(track.stdout.split(separator: "\n").count == 145 && track.stdout.contains("\"corners\"") && !track.stdout.contains("\"pose\""))
        #expect(track.stderr.contains("145 frames"))
        // One of the two: a note, and corners only.
        let half = try CLI.run(["track", "--device", video, "--marker-size", "5cm", "--jsonl", "-"], in: dir)
        #expect(half.status == 0 && half.stderr.contains("poses need both --calibration and --marker-size"))
        #expect(half.stdout == detect.stdout)
    }

    @Test func theAssistantCapturesARenderedClipAndCalibrates() throws {
        let dir = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        // A 480x360 clip of a hand moving a 9x6 board from view to view (held 0.7 s each, at 10 fps).
        let camera = BuiltInCamera.webcam(width: 480, height: 360)
        let clip = dir.appendingPathComponent("clip.avi")
        try CalibrationVerification(camera: camera, width: 480, height: 360, views: 20, seed: 5)
            .renderClip(to: clip, hold: 7, move: 3, fps: 10)
        let board = try Checkerboard(innerColumns: 9, innerRows: 6, square: .mm(30))
        try BoardSpec(board: board, page: PageSize(name: "A4", width: .mm(210), height: .mm(297)), origin: (0, 0)).encoded()
            .write(to: dir.appendingPathComponent("board.json"))
        let result = try CLI.run(["capture", "--device", "clip.avi", "--out", "views", "--board", "board.json", "--auto", "--count", "12",
                                  "--calibrate", "rendered"], in: dir)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("saved 12 frames"), "\(result.stdout)")
        let (log, images) = try CaptureLog.read(from: dir.appendingPathComponent("views/capture.json"))
        #expect(images.count == 12 && log.images.allSatisfy { $0.parameters != nil && ($0.sharpness ?? 0) > 20 })
        // Every kept view differs from every other by more than the novelty gate.
        let parameters = log.images.compactMap(\.parameters)
        for (i, a) in parameters.enumerated() {
            for b in parameters[(i + 1)...] {
                #expect(abs(a.x - b.x) + abs(a.y - b.y) + abs(a.size - b.size) + abs(a.skew - b.skew) > 0.2)
            }
        }
        let stored = try CameraCalibration.read(from: dir.appendingPathComponent("Calibrations/rendered.yaml"))
        let error = abs(stored.fx - camera.fx) / camera.fx
        print(String(format: "measured: capture assistant on a rendered clip, 12 views, fx %.2f vs %.2f (%.3f%%)", stored.fx, camera.fx, 100 * error))
        #expect(error < 0.01)
        // calibrate reads the capture log by itself.
        let again = try CLI.run(["calibrate", "views", "--name", "again"], in: dir)
        #expect(again.status == 0 && again.stdout.contains("calibrated from 12 of 12 images"), "\(again.stderr)")
    }

    /// The assistant calibrates the views it keeps as it goes and says where the
    /// projection uncertainty is worst; with --until-sigma it stops once the worst in the used area (the
    /// image without its outer 10%) is below it.
    @Test func theAssistantStopsWhenTheUncertaintyIsLowEnough() throws {
        let dir = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let render = try CLI.run(["render", "--clip", "14", "--size", "480x360", "--seed", "5", "-o", "clip.avi"], in: dir)
        #expect(render.status == 0, "\(render.stderr)")
        let all = try CLI.run(["capture", "--device", "clip.avi", "--out", "all", "--board", "clip.json", "--auto", "--count", "30"], in: dir)
        #expect(all.status == 0 && all.stdout.contains("projection uncertainty from the"), "\(all.stdout) \(all.stderr)")
        let until = try CLI.run(["capture", "--device", "clip.avi", "--out", "until", "--board", "clip.json", "--auto", "--count", "30",
                                 "--until-sigma", "1px"], in: dir)
        #expect(until.status == 0 && until.stdout.contains("below --until-sigma 1.00 px"), "\(until.stdout) \(until.stderr)")
        let (kept, _) = try CaptureLog.read(from: dir.appendingPathComponent("until/capture.json"))
        let (everything, _) = try CaptureLog.read(from: dir.appendingPathComponent("all/capture.json"))
        print("measured: capture --until-sigma 1px kept \(kept.images.count) views, without it \(everything.images.count)")
        #expect(kept.images.count >= 5 && kept.images.count < everything.images.count)
        let worst = try #require(until.stdout.split(separator: "\n").first { $0.contains("projection uncertainty") })
        let sigma = try #require(Double(worst.split(separator: " ").drop { $0 != "worst" }.dropFirst().first ?? ""))
        #expect(sigma < 1)
        for (arguments, message) in [(["--until-sigma", "3cm"], "is not a size in pixels"), (["--until-sigma", "1px", "--every", "1"], "--until-sigma goes with --auto")] {
            let bad = try CLI.run(["capture", "--device", "clip.avi", "--out", "bad", "--board", "clip.json"] + (arguments.contains("--every") ? [] : ["--auto"]) + arguments, in: dir)
            #expect(bad.status == 64 && bad.stderr.contains(message), "\(bad.stderr)")
            #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("bad").path))
        }
    }
}

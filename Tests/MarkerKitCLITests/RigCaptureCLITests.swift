import Foundation
import Testing
@testable import MarkerKit

/// `capture` with several --device: OpenCV's left/right sample pairs played as two videos, and streamed by
/// two simulated V4L2 cameras (scripts/tools/fake-v4l2-camera.c, each with its own clock phase), kept as
/// matched sets and calibrated as a rig.
@Suite(.serialized) struct RigCaptureCLITests {
    static let sides = [("left", RigCLITests.left), ("right", RigCLITests.right)]

    static func images(_ folder: URL) throws -> [URL] {
        try files(in: folder).filter { $0.hasSuffix(".jpg") }.map { folder.appendingPathComponent($0) }
    }

    /// Each sample photo held `frames` frames, as a video at 10 fps.
    static func video(_ folder: URL, to url: URL, frames: Int) throws {
        let writer = try VideoFileWriter(url: url, width: 640, height: 480, framesPerSecond: 10)
        for image in try images(folder) {
            let frame = try Frame(contentsOf: image, format: .bgr8)
            for _ in 0..<frames { try writer.write(frame) }
        }
        try writer.finish()
    }

    /// Two simulated cameras, /dev/video-rig0 and /dev/video-rig1, showing the sample's first 8 left and
    /// right pictures, each held 20 frames (looping): the environment that makes them.
    static func simulatedPair(in dir: URL) throws -> [String: String] {
        var frameDirs: [String] = []
        for (name, folder) in sides {
            let target = dir.appendingPathComponent("frames-\(name)")
            try FileManager.default.createDirectory(at: target, withIntermediateDirectories: true)
            var index = 0
            for image in try images(folder).prefix(8) {
                let png = try Frame(contentsOf: image, format: .gray8).encoded(as: "png")
                for _ in 0..<20 {
                    try png.write(to: target.appendingPathComponent(String(format: "frame_%04d.png", index)))
                    index += 1
                }
            }
            frameDirs.append(target.path)
        }
        return ["LD_PRELOAD": try FakeCameraTests.library.get().path, "MARKERKIT_FAKE_CAMERA": "/dev/video-rig0,/dev/video-rig1",
                "MARKERKIT_FAKE_CAMERA_FRAMES_DIR": frameDirs.joined(separator: ",")]
    }

    static func board(in dir: URL) throws {
        let spec = try CLI.run(["generate", "checkerboard", "--inner", "9x6", "--square", "25mm", "--spec-only", "-o", "board.json"], in: dir)
        try #require(spec.status == 0, "\(spec.stderr)")
    }

    @Test func twoVideosGiveMatchedSetsThatCalibrateAsARig() throws {
        let dir = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try Self.board(in: dir)
        for (name, folder) in Self.sides { try Self.video(folder, to: dir.appendingPathComponent("\(name).avi"), frames: 10) }
        // An empty folder made beforehand is a folder to capture into (it was refused: no 'pairs/left' to check).
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("pairs"), withIntermediateDirectories: true)
        let capture = try CLI.run(["capture", "--device", "left.avi", "--device", "right.avi", "--camera-names", "left,right", "--board", "board.json",
                                   "--auto", "--out", "pairs", "--calibrate", "stereo"], in: dir)
        #expect(capture.status == 0, "\(capture.stderr)")
        let saved = try #require(capture.stdout.firstMatch(of: /saved (\d+) sets of 2 cameras/).map { Int($0.1)! })
        #expect(saved >= 6, "\(capture.stdout)")
        #expect(capture.stdout.contains("largest gap in a set 0.0 ms"))
        #expect(capture.stdout.contains("pose from left: baseline 83."), "\(capture.stdout)")
        // The pair's sigma from the sets kept, as the capture goes: the joint solve's, on the capture's corners.
        let pair = try #require(capture.stdout.firstMatch(of: /left-right: baseline ([0-9.]+) ± ([0-9.]+) mm, direction ± ([0-9.]+)°, rotation ± ([0-9.]+)° \((\d+) sets\)/),
                                "\(capture.stdout)")
        #expect(abs(Double(pair.1)! - 83.2) < 0.5 && Double(pair.2)! > 0 && Double(pair.2)! < 0.5 && Int(pair.5)! == saved, "\(pair.0)")
        print("measured: rig capture of the sample pair: \(pair.0)")
        #expect(try files(in: dir.appendingPathComponent("pairs")) == ["left", "rig.json", "right"])
        #expect(try files(in: dir.appendingPathComponent("pairs/left")) == files(in: dir.appendingPathComponent("pairs/right")))
        // The folders calibrate again by hand, as the capture says.
        let again = try CLI.run(["calibrate", "--rig", "pairs/left", "pairs/right", "--board", "board.json", "--name", "again"], in: dir)
        #expect(again.status == 0 && again.stdout.contains("calibrated a rig of 2 cameras from \(saved) of \(saved) views"), "\(again.stderr)")
    }

    /// Two simulated cameras at 30 fps, started one after the other (their frames' instants differ by a
    /// phase, as two free-running webcams' do), each picture held 20 frames: sets are matched by the
    /// driver timestamps, every kept set within the default gap (half a frame time and 2 ms, 18.7 ms).
    @Test func twoSimulatedCamerasAreMatchedByTheirDriverTimestamps() throws {
        let dir = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try Self.board(in: dir)
        var environment = try Self.simulatedPair(in: dir)
        environment["MARKERKIT_FAKE_CAMERA_FRAMES"] = "180"
        let capture = try CLI.run(["capture", "--device", "/dev/video-rig0", "--device", "/dev/video-rig1", "--board", "board.json", "--auto",
                                   "--out", "live"], in: dir, environment: environment)
        #expect(capture.status == 0 || capture.status == 130, "\(capture.stderr)")
        let log = try JSONSerialization.jsonObject(with: Data(contentsOf: dir.appendingPathComponent("live/rig.json"))) as? [String: Any]
        let sets = try #require(log?["sets"] as? [[String: Any]])
        let gap = try #require(log?["max_gap"] as? Double)
        print("measured: \(sets.count) sets from two simulated cameras, gaps \(sets.compactMap { $0["gap"] as? Double }.map { String(format: "%.1f ms", 1000 * $0) }), allowed \(gap)")
        #expect(sets.count >= 3, "\(capture.stdout) \(capture.stderr)")
        #expect(abs(gap - (0.5 / 30 + 0.002)) < 1e-9)
        for set in sets {
            let times = try #require(set["times"] as? [Double])
            #expect(abs(times[0] - times[1]) <= gap && (set["gap"] as? Double ?? 1) <= gap)
        }
        // The times are the drivers' (CLOCK_MONOTONIC), not the capture's own clock in capture.json.
        let camera = try JSONSerialization.jsonObject(with: Data(contentsOf: dir.appendingPathComponent("live/cam0/capture.json"))) as? [String: Any]
        let own = try #require((camera?["images"] as? [[String: Any]])?.first?["time"] as? Double)
        let driver = try #require(sets.first?["times"] as? [Double])[0]
        #expect(abs(own - driver) > 0.001, "rig.json holds the driver's timestamps (\(driver)), capture.json the capture's clock (\(own))")
    }

    static let badCases: [(arguments: [String], status: Int32, says: String)] = [
        (["capture", "--device", "a.avi", "--device", "b.avi", "--out", "x"], 64, "give --board board.json and --auto"),
        (["capture", "--device", "a.avi", "--device", "b.avi", "--board", "board.json", "--auto", "--out", "x", "--max-gap", "5"], 64, "has no unit"),
        (["capture", "--device", "a.avi", "--device", "b.avi", "--board", "board.json", "--auto", "--out", "x", "--max-gap", "1e308s"], 64, "outside 0-1 s"),
        (["capture", "--device", "a.avi", "--device", "b.avi", "--board", "board.json", "--auto", "--out", "x", "--camera-names", "l"], 64, "--camera-names takes 2"),
        (["capture", "--device", "a.avi", "--device", "missing.avi", "--board", "board.json", "--auto", "--out", "x"], 66, "missing.avi"),
        // serve with several --device: refused before it listens, its views folder not left behind.
        (["serve", "--device", "a.avi", "--device", "a.avi", "--out", "x"], 64, "give --board board.json"),
        (["serve", "--device", "a.avi", "--device", "a.avi", "--board", "board.json", "--out", "x", "--camera-names", "l"], 64, "--camera-names takes 2"),
        (["serve", "--device", "a.avi", "--device", "missing.avi", "--board", "board.json", "--out", "x"], 66, "missing.avi"),
        (["serve", "--device", "a.avi", "--device", "a.avi", "--board", "board.json", "--out", "x", "--until-sigma", "0.3px"], 64, "--until-sigma takes one camera"),
        (["serve", "--device", "a.avi", "--device", "a.avi", "--board", "board.json", "--out", "x", "--max-gap", "5"], 64, "has no unit"),
        (["serve", "--device", "a.avi", "--board", "board.json", "--out", "x", "--camera-names", "l,r"], 64, "go with several --device"),
    ]

    @Test(arguments: 0..<badCases.count)
    func badInputGetsOneLineAndWritesNothing(index: Int) throws {
        let (arguments, status, says) = Self.badCases[index]
        let dir = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try Self.board(in: dir)
        try Self.video(RigCLITests.left, to: dir.appendingPathComponent("a.avi"), frames: 1)
        let before = try files(in: dir)
        let result = try CLI.run(arguments, in: dir)
        #expect(result.status == status, "\(arguments): \(result.stderr)")
        #expect(result.stderrLines.count == 1 && result.stderr.contains(says), "\(arguments): \(result.stderr)")
        #expect(try files(in: dir) == before, "nothing written")
    }
}

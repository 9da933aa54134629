import Foundation
import Testing
@testable import MarkerKit

/// The webcam lock on the simulated C920 (scripts/tools/fake-v4l2-camera.c), whose autofocus hunts
/// 30 +- 15 and whose picture is magnified by m = 1 + 0.0004 (focus - 30) about its middle: a rendered board
/// clip streamed through it, `capture --auto --calibrate` with the default lock gives the clip's intrinsics
/// as seen at the held focus within 3 of the calibration's own standard deviations; with --no-lock the
/// calibration says the focus moved, and its cross-validation splits the views by focus.
/// scripts/webcam-lock-experiment runs the same on 10 seeds (docs/MEASUREMENTS.md, "Webcam lock").
@Suite(.serialized) struct WebcamLockTests {
    static let device = "/dev/video-markerkit-lock"
    static let sharpFocus = 30.0

    /// The camera's environment: a C920 streaming `frames` (a folder of PNG frames) once through, then Ctrl-C.
    static func camera(frames: URL, seed: Int, extra: [String: String] = [:]) throws -> [String: String] {
        let count = try files(in: frames).filter { $0.hasSuffix(".png") }.count
        return ["LD_PRELOAD": try FakeCameraTests.library.get().path, "MARKERKIT_FAKE_CAMERA": device, "MARKERKIT_FAKE_CAMERA_MODEL": "c920",
                "MARKERKIT_FAKE_CAMERA_FRAMES_DIR": frames.path, "MARKERKIT_FAKE_CAMERA_SEED": String(seed),
                "MARKERKIT_FAKE_CAMERA_FRAMES": String(count + 20)].merging(extra) { $1 }
    }

    /// The truth seen through the fake camera's magnification m: fx, fy times m; the principal point moved
    /// away from the middle of the pixel grid ((w - 1) / 2 with pixel centres at integers) by m.
    static func truth(_ c: RenderTruthFile.Camera, magnification m: Double) -> [Double] {
        let k = c.cameraMatrix, mx = Double(c.imageWidth - 1) / 2, my = Double(c.imageHeight - 1) / 2
        return [k[0] * m, k[4] * m, (k[2] - mx) * m + mx, (k[5] - my) * m + my]
    }

    /// The views a capture keeps of the 16 streamed: at least 10 at full speed (15 are usual). Under a sanitizer
    /// (MARKERKIT_TIME_SCALE) each frame is held 10 times longer, but the capture's uncertainty update after a
    /// kept view runs 2-20 times slower while the camera streams on in real time: ASan's run kept 8 and 9 views
    /// (their intrinsics within 1.1 sigma of the truth), so there 6 are asked for and the accuracy is still checked.
    static var fewestViews: Int { CLI.seconds(1) > 1 ? 6 : 10 }

    static func magnification(focus: Int64) -> Double { 1 + 0.0004 * (Double(focus) - sharpFocus) }

    /// (estimate - truth) / sigma for fx, fy, cx, cy.
    static func errorsInSigmas(_ c: CameraCalibration, truth: [Double]) throws -> [Double] {
        let sd = try #require(c.provenance?.stdDeviations)
        let estimate = [c.fx, c.fy, c.cx, c.cy]
        return (0..<4).map { (estimate[$0] - truth[$0]) / sd[$0] }
    }

    /// One rendered clip (16 views of the 9x6 board, noise 2), streamed at 7.5 fps so that each view's 7
    /// frames hold still for 0.8 s (at the clip's own 10 fps they hold exactly the assistant's 0.5 s, and
    /// the jitter of the camera's timestamps loses about half of the views); two seeds of the camera's
    /// hunt, each captured with the default lock and with --no-lock side by side (the camera streams in
    /// real time: about 30 s a seed, 2.5 min in all with a debug build's render).
    @Test func lockedCaptureHoldsTheTruthAndUnlockedIsFlagged() throws {
        let dir = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let render = try CLI.run(["render", "--clip", "16", "--size", "640x480", "--seed", "3", "--noise", "2", "-o", "clip"], in: dir)
        try #require(render.status == 0, "\(render.stderr)")
        let clip = dir.appendingPathComponent("clip")
        let truth = try RenderTruthFile.read(from: clip.appendingPathComponent("truth.json")).camera
        // Each frame is shown twice (longer under a sanitizer, TrackScaleTests.heldLonger): with the two
        // captures side by side on a busy 2-core machine, a view held 0.9 s was sometimes seen still for
        // less than the assistant's 0.5 s, and fewer than 10 of the 16 views were kept.
        let held = try TrackScaleTests.heldLonger(clip, in: dir, atLeast: 2)
        for seed in [3, 8] {
            let environment = try Self.camera(frames: held, seed: seed)
            func capture(_ way: String, _ options: [String]) throws -> CLI.Started {
                try CLI.Started(["capture", "--device", Self.device, "--size", "640x480", "--fps", "7.5", "--board", "clip/board.json", "--auto",
                                 "--out", "\(way)\(seed)", "--calibrate", "\(way)\(seed)"] + options, in: dir, filePrefix: "\(way)\(seed)", environment: environment)
            }
            let runs = [try capture("locked", []), try capture("unlocked", ["--no-lock"])]
            for run in runs { run.process.waitUntilExit() }
            let (locked, unlocked) = (try runs[0].output(), try runs[1].output())
            try #require(runs[0].process.terminationStatus == 0, "\(locked.stderr)")
            try #require(runs[1].process.terminationStatus == 0, "\(unlocked.stderr)")

            // Locked: one focus over every view, and the intrinsics of the picture at that focus.
            let lockedLog = try CaptureLog.read(from: dir.appendingPathComponent("locked\(seed)/capture.json")).log
            let focus = Set(lockedLog.images.compactMap(\.focus))
            #expect(lockedLog.images.count >= Self.fewestViews && focus.count == 1, "seed \(seed): \(lockedLog.images.count) views at focus \(focus.sorted())")
            #expect(!locked.stdout.contains("warning: the focus moved"), "\(locked.stdout)")
            let held = try #require(focus.first)
            let calibration = try CameraCalibration.read(from: dir.appendingPathComponent("Calibrations/locked\(seed).yaml"))
            #expect(calibration.camera?.focus == held && calibration.camera?.autofocus == false)
            let errors = try Self.errorsInSigmas(calibration, truth: Self.truth(truth, magnification: Self.magnification(focus: held)))
            print(String(format: "measured: seed %d locked at focus %d, %d views: fx fy cx cy off by %+.2f %+.2f %+.2f %+.2f sigma",
                         seed, held, lockedLog.images.count, errors[0], errors[1], errors[2], errors[3]))
            #expect(errors.allSatisfy { abs($0) < 3 }, "seed \(seed): \(errors) sigma from the truth at focus \(held)")

            // Unlocked: the views were kept at several focus values, and the summary says so.
            let unlockedLog = try CaptureLog.read(from: dir.appendingPathComponent("unlocked\(seed)/capture.json")).log
            let range = try #require(unlockedLog.camera?.focusRange)
            #expect(range[0] < range[1], "seed \(seed): the hunt moved the focus between views: \(range)")
            #expect(unlocked.stdout.contains("warning: the focus moved from \(range[0]) to \(range[1]) while the views were taken"), "\(unlocked.stdout)")
            let show = try CLI.run(["calibrations", "show", "unlocked\(seed)"], in: dir,
                                   environment: ["MARKERKIT_CALIBRATIONS": dir.appendingPathComponent("Calibrations").path])
            #expect(show.stdout.contains("warning: the focus moved"), "\(show.stdout)")
            // And the cross-validation splits such views by focus (the locked ones every other view). Its ratio is
            // printed, not checked: above its threshold of 3 in 9 of 10 seeds of scripts/webcam-lock-experiment (20-view
            // clips), but on this 16-view clip it ranged 0.25-3.49 over runs (seed 3 once 0.25 against the locked 0.87):
            // a hunt that moves the lens less than a half's noise cannot be seen by comparing halves. The warning above
            // is what always flags an unlocked capture.
            let crossUnlocked = try CLI.run(["calibrate", "unlocked\(seed)", "--cross-validate", "-o", "unlocked\(seed)-again.json"], in: dir)
            #expect(crossUnlocked.status == 0 && crossUnlocked.stdout.contains(" views at focus "), "\(crossUnlocked.stdout) \(crossUnlocked.stderr)")
            let crossLocked = try CLI.run(["calibrate", "locked\(seed)", "--cross-validate", "-o", "locked\(seed)-again.json"], in: dir)
            #expect(crossLocked.status == 0 && !crossLocked.stdout.contains(" views at focus "), "\(crossLocked.stdout) \(crossLocked.stderr)")
            let verdict = { (out: String) in String(out.split(separator: "\n").first { $0.hasPrefix("cross-validation") } ?? "") }
            let ratio = { (out: String) -> Double in
                let line = verdict(out)
                guard let r = line.range(of: #"ratio [0-9.]+"#, options: .regularExpression) else { return .nan }
                return Double(line[r].dropFirst(6)) ?? .nan
            }
            #expect(ratio(crossUnlocked.stdout).isFinite && ratio(crossLocked.stdout).isFinite, "\(crossUnlocked.stdout) \(crossLocked.stdout)")
            print("measured: seed \(seed) unlocked, \(unlockedLog.images.count) views, focus \(range[0])-\(range[1]); \(verdict(crossUnlocked.stdout)); locked: \(verdict(crossLocked.stdout))")
        }
    }
}

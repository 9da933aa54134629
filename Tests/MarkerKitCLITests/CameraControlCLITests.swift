import Foundation
import Testing
@testable import MarkerKit

/// A webcam's controls through the real V4L2 code, against the fake camera's C920 model: the
/// list, `--set` and its refusals, the lock while capturing and the settings put back on every way out,
/// and a camera unplugged during capture, track and serve. The fake keeps its controls in a state file,
/// as a real camera keeps them between programs, so what a run left behind is read after it exits.
@Suite(.serialized) struct CameraControlCLITests {
    static let device = FakeCameraTests.device

    struct Camera {
        let dir: URL
        let state: URL
        let photo: URL

        init() throws {
            dir = try makeDirectory()
            state = dir.appendingPathComponent("camera-state")
            photo = try FakeCameraTests.grayPhoto(in: dir)
            // The camera as another program left it: brightness moved, every automatic mode on.
            try Data("brightness=140\nfocus_automatic_continuous=1\nauto_exposure=3\nwhite_balance_automatic=1\ngain=0\n".utf8).write(to: state)
        }

        func environment(_ extra: [String: String] = [:]) throws -> [String: String] {
            ["LD_PRELOAD": try FakeCameraTests.library.get().path, "MARKERKIT_FAKE_CAMERA": CameraControlCLITests.device,
             "MARKERKIT_FAKE_CAMERA_MODEL": "c920", "MARKERKIT_FAKE_CAMERA_IMAGE": photo.path,
             "MARKERKIT_FAKE_CAMERA_STATE": state.path, "MARKERKIT_FAKE_CAMERA_FPS": "30"].merging(extra) { $1 }
        }

        /// The controls the camera holds now (nil when it has none: unplugged, it forgot them).
        func controls() -> [String: String]? {
            guard let text = try? String(contentsOf: state, encoding: .utf8) else { return nil }
            return Dictionary(text.split(separator: "\n").compactMap { line in
                let parts = line.split(separator: "=", maxSplits: 1).map(String.init)
                return parts.count == 2 ? (parts[0], parts[1]) : nil
            }, uniquingKeysWith: { $1 })
        }

        /// The settings another program left are there again.
        func expectPutBack(_ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
            let now = controls() ?? [:]
            for (name, value) in ["brightness": "140", "focus_automatic_continuous": "1", "auto_exposure": "3", "white_balance_automatic": "1", "gain": "0"] {
                #expect(now[name] == value, "\(what): \(name) is \(now[name] ?? "absent"), was \(value)", sourceLocation: sourceLocation)
            }
        }
    }

    @Test func theListShowsEveryControlAsV4L2CtlDoes() throws {
        let camera = try Camera()
        let list = try CLI.run(["capture", "--list", "--device", Self.device], in: camera.dir, environment: try camera.environment())
        #expect(list.status == 0, "\(list.stderr)")
        for expected in ["HD Pro Webcam C920 (uvcvideo", "MJPG  Motion-JPEG: 640x480 @30", "Camera Controls",
                         "focus_automatic_continuous 0x009a090c (bool)   : default=1 value=1",
                         "focus_absolute 0x009a090a (int)    : min=0 max=250 step=5 default=0", "flags=inactive",
                         "auto_exposure 0x009a0901 (menu)   : min=0 max=3 default=3 value=3 (Aperture Priority Mode)",
                         "1: Manual Mode", "brightness 0x00980900 (int)    : min=0 max=255 step=1 default=128 value=140", "flags=read-only"] {
            #expect(list.stdout.contains(expected), "\(expected) missing from:\n\(list.stdout)")
        }
    }

    /// `--set` sets a control before streaming, on capture, track and serve; a bad one gets one line
    /// naming what is allowed, exit 64, and leaves the camera as it was (a setting made before it
    /// included).
    @Test(arguments: [
        (["--set", "focuss=40"], "has no control 'focuss'; it has brightness, contrast"),
        (["--set", "focus_absolute=300"], "focus_absolute takes 0 to 250 in steps of 5"),
        (["--set", "brightness=99999999999999999999999999999999"], "brightness takes 0 to 255"),
        (["--set", "auto_exposure=2"], "auto_exposure takes 1 (Manual Mode) or 3 (Aperture Priority Mode)"),
        (["--set", "privacy=1"], "privacy is read-only"),
        (["--set", "brightness=90", "--set", "focus_absolute=40"], "focus_absolute cannot be set while focus_automatic_continuous is on"),
        (["--set", "brightness"], "write a control as NAME=VALUE"),
    ])
    func aBadSettingGetsOneLine(options: [String], message: String) throws {
        let camera = try Camera()
        for command in [["capture", "--out", "views", "--every", "1"], ["track"], ["serve", "--port", "0"]] {
            let run = try CLI.run(command + ["--device", Self.device] + options, in: camera.dir, environment: try camera.environment())
            #expect(run.status == 64 && run.stderrLines.count == 1 && run.stderr.contains(message), "\(command[0]) \(options): \(run.status) \(run.stderr)")
            camera.expectPutBack("after \(command[0]) \(options)")
        }
    }

    @Test func aSettingIsMadeAndTheCameraIsPutBackAfterwards() throws {
        let camera = try Camera()
        // Ctrl-C from the camera after 120 frames (4 s); the settings hold meanwhile and are put back after.
        let run = try CLI.run(["track", "--device", Self.device, "--set", "focus_automatic_continuous=0", "--set", "focus_absolute=60",
                               "--set", "brightness=200", "--jsonl", "t.jsonl"],
                              in: camera.dir, environment: try camera.environment(["MARKERKIT_FAKE_CAMERA_FRAMES": "120"]))
        #expect(run.status == 0, "\(run.stderr)")
        let lines = try String(contentsOf: camera.dir.appendingPathComponent("t.jsonl"), encoding: .utf8).split(separator: "\n")
        #expect(lines.count >= 3, "track ran with the settings: \(lines.count) frames")
        camera.expectPutBack("after track --set")
    }

    /// Capture holds the camera still (autofocus off where it settled, exposure and white balance
    /// manual) and every way out puts back what was there: the end of the run, Ctrl-C, SIGTERM, an error.
    @Test func captureLocksTheCameraAndEveryWayOutPutsItBack() throws {
        let camera = try Camera()
        let capture = ["capture", "--device", Self.device, "--every", "0.1"]
        // The end: three frames saved; capture.json records the camera, locked.
        let end = try CLI.run(capture + ["--out", "end", "--count", "3"], in: camera.dir, environment: try camera.environment())
        #expect(end.status == 0, "\(end.stderr)")
        #expect(end.stderr.contains("markerkit: note: camera held for calibration: focus ") && end.stderr.contains("(autofocus off)")
                && end.stderr.contains("(auto exposure off)") && end.stderr.contains("white balance 4000"), "\(end.stderr)")
        let log = try CaptureLog.read(from: camera.dir.appendingPathComponent("end/capture.json")).log
        let state = try #require(log.camera)
        #expect(state.card == "HD Pro Webcam C920" && state.driver == "uvcvideo" && state.pixelFormat == "YUYV")
        #expect(state.width == 640 && state.height == 480 && state.autofocus == false && state.focus != nil && state.zoom == 100)
        #expect(log.images.count == 3 && log.images.allSatisfy { $0.focus == state.focus } && !state.focusMoved)
        camera.expectPutBack("after the end of a capture")

        // Ctrl-C (the fake sends SIGINT after 60 frames).
        let interrupted = try CLI.run(capture + ["--out", "ctrl-c", "--count", "10000"], in: camera.dir,
                                      environment: try camera.environment(["MARKERKIT_FAKE_CAMERA_FRAMES": "60"]))
        #expect(interrupted.status == 0 && interrupted.stdout.contains("stopped by Ctrl-C"), "\(interrupted.stdout) \(interrupted.stderr)")
        camera.expectPutBack("after Ctrl-C")

        // SIGTERM, as a service manager stops a program.
        let started = try CLI.Started(capture + ["--out", "sigterm", "--count", "10000"], in: camera.dir, filePrefix: "term-",
                                      environment: try camera.environment())
        let deadline = Date().addingTimeInterval(30)
        while started.process.isRunning && Date() < deadline
            && !FileManager.default.fileExists(atPath: camera.dir.appendingPathComponent("sigterm/view_001.png").path) {
            Thread.sleep(forTimeInterval: 0.05)
        }
        kill(started.process.processIdentifier, SIGTERM)
        started.process.waitUntilExit()
        let term = try started.output()
        #expect(started.process.terminationReason == .exit && started.process.terminationStatus == 0, "\(term.stderr)")
        camera.expectPutBack("after SIGTERM")

        // An error while streaming: the third view cannot be written (a folder took its name meanwhile).
        let failing = try CLI.Started(["capture", "--device", Self.device, "--every", "1", "--out", "error", "--count", "5"], in: camera.dir,
                                      filePrefix: "error-", environment: try camera.environment())
        let due = Date().addingTimeInterval(30)
        while failing.process.isRunning && Date() < due
            && !FileManager.default.fileExists(atPath: camera.dir.appendingPathComponent("error/view_000.png").path) {
            Thread.sleep(forTimeInterval: 0.02)
        }
        try FileManager.default.createDirectory(at: camera.dir.appendingPathComponent("error/view_002.png"), withIntermediateDirectories: true)
        failing.process.waitUntilExit()
        let failed = try failing.output()
        #expect(failing.process.terminationStatus == 73 && failed.stderr.contains("view_002.png': it is a directory"), "\(failing.process.terminationStatus) \(failed.stderr)")
        camera.expectPutBack("after an error")

        // --no-lock leaves the camera alone and says autofocus is on.
        let unlocked = try CLI.run(capture + ["--out", "unlocked", "--count", "2", "--no-lock"], in: camera.dir, environment: try camera.environment())
        #expect(unlocked.status == 0 && unlocked.stderr.contains("warning: autofocus is on (--no-lock)"), "\(unlocked.stderr)")
        #expect(try CaptureLog.read(from: camera.dir.appendingPathComponent("unlocked/capture.json")).log.camera?.autofocus == true)
    }

    /// `--calibration` on capture and serve: the camera is compared with the state the
    /// calibration records. Made at 1280x720, focus 45, zoom 120 on this card: the lock holds focus 45, a
    /// 640x360 stream gets a notice, the zoom a warning naming both values; the camera's 640x480 (another
    /// aspect ratio) is refused with one line, as is 640x360 with --no-scale, and the camera is put back.
    @Test func captureAndServeCheckTheCameraAgainstACalibration() throws {
        let camera = try Camera()
        try """
        %YAML:1.0
        image_width: 1280
        image_height: 720
        camera_matrix: !!opencv-matrix
           rows: 3
           cols: 3
           dt: d
           data: [ 900., 0., 639.5, 0., 900., 359.5, 0., 0., 1. ]
        distortion_coefficients: !!opencv-matrix
           rows: 5
           cols: 1
           dt: d
           data: [ 0., 0., 0., 0., 0. ]
        device_card: HD Pro Webcam C920
        device_width: 1280
        device_height: 720
        device_focus_automatic_continuous: 0
        device_focus_absolute: 45
        device_zoom_absolute: 120

        """.write(to: camera.dir.appendingPathComponent("c920.yml"), atomically: true, encoding: .utf8)
        let capture = ["capture", "--device", Self.device, "--every", "0.1", "--count", "2", "--calibration", "c920.yml"]
        let scaled = try CLI.run(capture + ["--size", "640x360", "--out", "scaled"], in: camera.dir, environment: try camera.environment())
        #expect(scaled.status == 0, "\(scaled.stderr)")
        #expect(scaled.stderr.contains("note: holding the focus at 45, where calibration 'c920' was made"), "\(scaled.stderr)")
        #expect(scaled.stderr.contains("note: calibration 'c920' is for 1280x720: its intrinsics are scaled by 0.5 for the camera's 640x360"), "\(scaled.stderr)")
        #expect(scaled.stderr.contains("warning: calibration 'c920' was made at zoom 120, the camera is at zoom 100"), "\(scaled.stderr)")
        #expect(!scaled.stderr.contains("focus 45, the camera is at focus"), "the focus is held where the calibration was made: \(scaled.stderr)")
        #expect(try CaptureLog.read(from: camera.dir.appendingPathComponent("scaled/capture.json")).log.camera?.focus == 45)
        camera.expectPutBack("after capture --calibration")

        for (name, arguments) in [("capture", capture + ["--out", "cropped"]), ("capture --no-scale", capture + ["--size", "640x360", "--no-scale", "--out", "noscale"]),
                                  ("serve", ["serve", "--device", Self.device, "--calibration", "c920.yml", "--out", "served", "--port", "0"])] {
            let refused = try CLI.run(arguments, in: camera.dir, environment: try camera.environment())
            #expect(refused.status == 64 && refused.stderrLines.filter { $0.hasPrefix("markerkit: error:") }.count == 1
                    && refused.stderr.contains("calibration 'c920' is for 1280x720 but the camera streams 640x"), "\(name): \(refused.status) \(refused.stderr)")
            camera.expectPutBack("after \(name) refused the calibration")
        }
        #expect(!FileManager.default.fileExists(atPath: camera.dir.appendingPathComponent("served").path))
    }

    /// Unplugged while streaming: one line, exit 74, every view and line kept. The camera forgets its
    /// controls with its power (the fake removes its state), so nothing is left to put back.
    @Test func anUnpluggedCameraEndsCaptureAndTrackWithWhatWasKept() throws {
        let camera = try Camera()
        let unplug = try camera.environment(["MARKERKIT_FAKE_CAMERA_UNPLUG_AFTER": "120"])
        let capture = try CLI.run(["capture", "--device", Self.device, "--every", "0.1", "--count", "1000", "--out", "views"], in: camera.dir, environment: unplug)
        #expect(capture.status == 74 && capture.stderrLines.count == 2, "\(capture.status) \(capture.stderr)") // the lock's note, then the error
        #expect(capture.stderr.contains("markerkit: error: camera '\(Self.device)' disconnected after ") && capture.stderr.contains("kept in views/ with capture.json"),
                "\(capture.stderr)")
        let (log, images) = try CaptureLog.read(from: camera.dir.appendingPathComponent("views/capture.json"))
        #expect(log.images.count >= 2 && images.allSatisfy { FileManager.default.fileExists(atPath: $0.path) }, "\(log.images.count) views")
        #expect(camera.controls() == nil)

        let track = try CLI.run(["track", "--device", Self.device, "--jsonl", "t.jsonl"], in: camera.dir, environment: unplug)
        #expect(track.status == 74 && track.stderrLines.count == 1 && track.stderr.contains("disconnected after "), "\(track.status) \(track.stderr)")
        let lines = try String(contentsOf: camera.dir.appendingPathComponent("t.jsonl"), encoding: .utf8).split(separator: "\n")
        #expect(lines.count >= 3 && lines.allSatisfy { (try? JSONSerialization.jsonObject(with: Data($0.utf8))) != nil }, "\(lines.count) lines")
        #expect(!((try? FileManager.default.contentsOfDirectory(atPath: camera.dir.path)) ?? []).contains { $0.hasSuffix(".tmp") })
    }

    /// The page shows what the lock holds and changes focus and exposure (as keep and calibrate, only the
    /// page that controls the camera may: the same lease); a bad value gets one line.
    @Test func servesTheCameraControlsToThePage() throws {
        let camera = try Camera()
        let server = try RunningServer(["--device", Self.device, "--out", "views"], in: camera.dir, environment: try camera.environment())
        func settings(_ answer: HTTP.Answer) throws -> [String: Any] { try #require(try JSONSerialization.jsonObject(with: answer.body) as? [String: Any]) }
        func control(_ s: [String: Any], _ name: String) -> [String: Any]? { (s["controls"] as? [[String: Any]])?.first { $0["name"] as? String == name } }
        let shown = try settings(try server.api("/api/camera"))
        #expect((shown["held"] as? [String])?.contains { $0.hasSuffix("(autofocus off)") } == true, "\(shown)")
        #expect(control(shown, "focus_automatic_continuous")?["value"] as? Int == 0 && control(shown, "auto_exposure")?["value"] as? Int == 1)
        let changed = try server.api("/api/camera", method: "POST", body: HTTP.json(["name": "focus_absolute", "value": "60"]))
        let afterChange = try settings(changed)
        #expect(changed.status == 200 && control(afterChange, "focus_absolute")?["value"] as? Int == 60)
        let bad = try server.api("/api/camera", method: "POST", body: HTTP.json(["name": "focus_absolute", "value": "600"]))
        #expect(bad.status == 422 && String(decoding: bad.body, as: UTF8.self).contains("takes 0 to 250 in steps of 5"))
        let other = try server.api("/api/camera", method: "POST", body: HTTP.json(["name": "brightness", "value": "10"]))
        #expect(other.status == 422, "only focus, exposure, gain, white balance and zoom are the page's")
        #expect(try server.interrupt().status == 0)
        camera.expectPutBack("after serve")
    }

    /// serve says the camera is gone and goes on serving the page and the kept views.
    @Test func anUnpluggedCameraLeavesServeServing() throws {
        let camera = try Camera()
        let server = try RunningServer(["--device", Self.device, "--out", "views"], in: camera.dir,
                                       environment: try camera.environment(["MARKERKIT_FAKE_CAMERA_UNPLUG_AFTER": "60"]))
        var status: [String: Any] = [:]
        let deadline = Date().addingTimeInterval(30)
        while status["phase"] as? String != "disconnected" && Date() < deadline {
            Thread.sleep(forTimeInterval: 0.2)
            status = (try JSONSerialization.jsonObject(with: try server.api("/api/status").body) as? [String: Any]) ?? [:]
        }
        #expect(status["phase"] as? String == "disconnected" && (status["message"] as? String ?? "").contains("camera disconnected"), "\(status)")
        #expect(try HTTP.request(server.base + "/app.js").status == 200)
        #expect(try server.api("/api/status").status == 200)
        let stopped = try server.interrupt()
        #expect(stopped.status == 0, "\(stopped.stderr)")
    }
}

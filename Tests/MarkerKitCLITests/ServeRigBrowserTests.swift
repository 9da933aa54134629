import Foundation
import Testing
@testable import MarkerKit

/// `markerkit serve` with two --device, used from headless Chromium: a rendered rig's two clips (the
/// second camera 120 mm to the right, turned 3°) are shown side by side, the sets kept are those `capture`
/// with the same two --device keeps, each camera's coverage and the pair's sigma are on the page, and
/// calibrate gives what `calibrate --rig` makes of the captured folders; it stores, lists and downloads
/// the rig. Screenshots go to .build/screenshots/.
@Suite(.serialized) struct ServeRigBrowserTests {
    @Test func theBrowserCalibratesARigAsCaptureAndCalibrateRigDo() throws {
        let dir = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let render = try CLI.run(["render", "--clip", "10", "--rig", "2", "--noise", "2", "-o", "clip"], in: dir)
        try #require(render.status == 0, "\(render.stderr)")
        let devices = ["--device", "clip/cam0.avi", "--device", "clip/cam1.avi", "--camera-names", "left,right", "--board", "clip/board.json"]
        let capture = try CLI.run(["capture"] + devices + ["--auto", "--out", "captured"], in: dir)
        try #require(capture.status == 0, "\(capture.stderr)")
        let server = try RunningServer(devices + ["--out", "views"], in: dir)
        let browser = try Browser()
        try browser.open(server.base + "/")

        #expect(try browser.wait(20, until: "window.markerkit.framesShown >= 3"), "the pictures arrive")
        #expect(try browser.wait(90, until: "window.markerkit.status && window.markerkit.status.phase === 'ended'"), "the clips play to their end")
        let status = try #require(try browser.run("return window.markerkit.status") as? [String: Any])
        let sets = status["views"] as? Int ?? 0
        // Side by side: the page's picture is both cameras' with 8 px between them.
        #expect(status["width"] as? Int == 2 * 1280 + 8 && status["height"] as? Int == 720, "\(status)")
        #expect(try browser.wait(5, until: "document.querySelectorAll('#thumbnails img').length === \(sets)"), "a thumbnail per set")
        let coverage = try browser.text("#coverage")
        #expect(coverage.contains("left (1280x720)") && coverage.contains("right (1280x720)"), "each camera's coverage: \(coverage)")
        #expect(try browser.text("#assistant h2").hasPrefix("Sets "), "a rig keeps sets")
        let pairs = try browser.text("#pairs")
        let pair = try #require(pairs.firstMatch(of: /left–right: baseline ([0-9.]+) ± ([0-9.]+) mm/), "the pair's sigma: \(pairs)")
        #expect(abs(Double(pair.1)! - 120) < 5 * Double(pair.2)! + 0.05, "baseline \(pair.1) ± \(pair.2) against the true 120")
        try browser.screenshot("serve-rig-capturing")

        // The same sets as capture with the same two --device keeps.
        func times(_ folder: String) throws -> [[Double]] {
            let log = try JSONSerialization.jsonObject(with: Data(contentsOf: dir.appendingPathComponent("\(folder)/rig.json"))) as? [String: Any]
            return (log?["sets"] as? [[String: Any]] ?? []).map { ($0["times"] as? [NSNumber] ?? []).map(\.doubleValue) }
        }
        let served = try times("views"), captured = try times("captured")
        #expect(served == captured && served.count == sets && sets >= 5, "serve kept \(served), capture \(captured)")

        // Calibrate, store, list, download.
        try browser.click("#calibrate")
        let action = { (try? browser.text("#action")) ?? "" }
        #expect(try browser.wait(90, until: "!document.getElementById('result').hidden"), "a result: \(action())")
        let summary = try browser.text("#summary")
        #expect(summary.contains("pose from left: baseline") && abs((RigCLITests.baseline(in: summary) ?? 0) - 120) < 0.05, "\(summary)")
        #expect(try browser.run("return document.getElementById('report').hidden") as? Bool == true, "no PDF report offered for a rig")
        try browser.type("#store-name", "browserrig")
        try browser.click("#store-form button")
        #expect(try browser.wait(20, until: "document.getElementById('action').textContent.includes('stored browserrig.yaml')"), "\(action())")
        #expect(try browser.wait(10, until: "document.getElementById('stored-list').textContent.includes('rig of left, right')"), "listed as a rig")
        // Its downloads are the rig formats that can carry it: Kalibr's radtan has no k3.
        let storedLinks = try browser.run("return [...document.querySelectorAll('#stored-list a')].map(a => a.textContent)") as? [String] ?? []
        #expect(storedLinks == ["opencv-stereo"], "\(storedLinks)")
        let cli = try CLI.run(["calibrate", "--rig", "captured/left", "captured/right", "--board", "clip/board.json", "--name", "cli"], in: dir)
        #expect(cli.status == 0, "\(cli.stderr)")
        func numbers(_ name: String) throws -> [String] {
            try String(contentsOf: dir.appendingPathComponent("Calibrations/\(name).yaml"), encoding: .utf8)
                .split(separator: "\n").filter { !$0.contains("name") && !$0.contains("time") && !$0.hasPrefix("#") }.map(String.init)
        }
        #expect(try numbers("browserrig") == numbers("cli"), "the browser's rig equals capture + calibrate --rig on the same frames")

        let links = try #require(try browser.run("return [...document.querySelectorAll('a.format')].map(a => a.href)") as? [String])
        #expect(links.contains { $0.contains("/api/result/opencv-stereo") }, "\(links)")
        for link in links {
            let answer = try HTTP.request(link)
            #expect(answer.status == 200 && !answer.body.isEmpty, "\(link): \(answer.status) \(answer.text.prefix(200))")
            let format = String(link.split(separator: "?").first!.split(separator: "/").last!)
            let file = dir.appendingPathComponent("download-\(format).yaml")
            try answer.body.write(to: file)
            let back = try CLI.run(["calibrations", "import", file.path, "--name", "back-\(format)", "--format", format], in: dir)
            #expect(back.status == 0 && abs((RigCLITests.baseline(in: back.stdout) ?? 0) - 120) < 0.05, "\(format) reads back: \(back.stdout) \(back.stderr)")
        }
        let stored = try server.api("/api/calibrations/browserrig/opencv-stereo")
        #expect(stored.status == 200 && stored.text.contains("image_width: 1280"), "the stored rig downloads: \(stored.text.prefix(200))")
        try browser.screenshot("serve-rig-calibrated")
        print("measured: serve with two --device kept \(sets) sets (capture: \(captured.count)); \(pair.0)")
        let stopped = try server.interrupt()
        #expect(stopped.status == 0 && stopped.stdout.contains("\(sets) sets kept"), "\(stopped.stdout) \(stopped.stderr)")
    }

    /// Two simulated V4L2 cameras (each its own clock phase, as two free-running webcams): the page's status
    /// carries both cameras' frames and the sets kept live, each set's frames within the gap by the drivers'
    /// timestamps, and Ctrl-C ends it within a second.
    @Test func twoSimulatedCamerasAreServedLive() throws {
        let dir = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try RigCaptureCLITests.board(in: dir)
        let environment = try RigCaptureCLITests.simulatedPair(in: dir) // the pictures loop until Ctrl-C
        let server = try RunningServer(["--device", "/dev/video-rig0", "--device", "/dev/video-rig1", "--board", "board.json", "--out", "live"],
                                       in: dir, environment: environment)
        var status: [String: Any] = [:]
        let deadline = Date().addingTimeInterval(40)
        while Date() < deadline {
            Thread.sleep(forTimeInterval: 0.3)
            status = try JSONSerialization.jsonObject(with: try server.api("/api/status").body) as? [String: Any] ?? [:]
            if (status["views"] as? Int ?? 0) >= 3 || ["ended", "disconnected", "failed"].contains(status["phase"] as? String ?? "") { break }
        }
        let rig = try #require(status["rig"] as? [String: Any], "\(status)")
        let cameras = try #require(rig["cameras"] as? [[String: Any]])
        #expect(cameras.map { $0["width"] as? Int } == [640, 640], "\(cameras)")
        let sets = status["views"] as? Int ?? 0
        #expect(sets >= 3 && status["phase"] as? String == "capturing", "sets kept live: \(status)")
        #expect((status["fps"] as? Double ?? 0) > 10, "both cameras stream: \(status["fps"] ?? "")")
        let picture = try server.api("/api/frame.jpg")
        let image = try Frame(contentsOf: { let url = dir.appendingPathComponent("picture.jpg"); try picture.body.write(to: url); return url }(), format: .gray8)
        #expect(image.width == 2 * 640 + 8 && image.height == 480, "both cameras side by side: \(image.width)x\(image.height)")
        let log = try JSONSerialization.jsonObject(with: Data(contentsOf: dir.appendingPathComponent("live/rig.json"))) as? [String: Any]
        let gap = try #require(log?["max_gap"] as? Double)
        let gaps = (log?["sets"] as? [[String: Any]] ?? []).compactMap { $0["gap"] as? Double }
        #expect(gaps.count >= sets && gaps.allSatisfy { $0 <= gap }, "\(gaps) against \(gap)")
        print("measured: serve with two simulated cameras: \(sets) sets, gaps \(gaps.map { String(format: "%.1f ms", 1000 * $0) }), phase \(status["phase"] ?? "")")
        let stopped = try server.interrupt()
        #expect(stopped.status == 0 && stopped.seconds < CLI.seconds(1), "\(stopped.seconds) s \(stopped.stderr)")
    }
}

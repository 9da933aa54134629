import Foundation
import Testing
@testable import MarkerKit

/// Ctrl-C (SIGINT) in the middle of long runs: the command stops within seconds, and everything it had
/// finished stays as it was. `verify` and `calibrate` write only at their end, so they stop with exit
/// code 130, one line on stderr and nothing written (a stored calibration untouched); `capture` stops
/// cleanly (exit 0) with every frame it saved listed in its capture.json.
@Suite struct InterruptTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures")

    struct Stopped {
        let status: Int32
        let stdout: String
        let stderrLines: [Substring]
        /// From SIGINT to exit.
        let seconds: Double
    }

    /// Whether process `pid` has a handler for SIGINT (its SigCgt mask in /proc), i.e. the command has
    /// reached the part of its run where Ctrl-C means "stop at the next safe point".
    static func catchesInterrupt(_ pid: Int32) -> Bool {
        // Until exec, /proc shows the test runner's own handlers.
        guard (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/exe")) == CLI.binary.path,
              let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("SigCgt:") }),
              let mask = UInt64(line.dropFirst(7).trimmingCharacters(in: .whitespaces), radix: 16) else { return false }
        return mask & (1 << (UInt64(SIGINT) - 1)) != 0
    }

    /// Runs markerkit, waits until `ready` says so (polled every 10 ms) and `delay` seconds more, sends
    /// SIGINT, and waits for it to exit.
    static func interrupt(_ arguments: [String], in dir: URL, after delay: Double = 0,
                          when ready: (Int32) -> Bool = catchesInterrupt) throws -> Stopped {
        let run = try CLI.Started(arguments, in: dir, filePrefix: "")
        let process = run.process
        let clock = ContinuousClock()
        let started = clock.now
        while process.isRunning && !ready(process.processIdentifier) && clock.now - started < .seconds(120) { usleep(10_000) }
        usleep(UInt32(delay * 1_000_000))
        #expect(process.isRunning, "markerkit \(arguments) was still busy when interrupted")
        let sent = clock.now
        kill(process.processIdentifier, SIGINT)
        while process.isRunning && clock.now - sent < .seconds(CLI.seconds(20)) { usleep(10_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        let took = clock.now - sent
        #expect(process.terminationReason == .exit, "markerkit \(arguments) died of a signal")
        let (stdout, stderr) = try run.output()
        return Stopped(status: process.terminationStatus, stdout: stdout,
                       stderrLines: stderr.split(separator: "\n").filter { !$0.hasPrefix("\r") && !$0.isEmpty },
                       seconds: seconds(took))
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) * 1e-18
    }

    static func files(in dir: URL) throws -> [String] {
        (FileManager.default.enumerator(atPath: dir.path)?.allObjects as? [String] ?? []).sorted()
    }

    @Test func verifyMarkersStopsAndWritesNothing() throws {
        let dir = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try Data("earlier\n".utf8).write(to: dir.appendingPathComponent("v.json"))
        let run = try Self.interrupt(["verify", "markers", "--renders", "100000", "--size", "320x240", "--json", "v.json", "--force"], in: dir, after: 1)
        #expect(run.status == 130 && run.seconds < CLI.seconds(5), "status \(run.status) after \(run.seconds) s")
        #expect(run.stderrLines.count == 1 && run.stderrLines.first?.contains("verify markers stopped by Ctrl-C") == true, "\(run.stderrLines)")
        #expect(try Data(contentsOf: dir.appendingPathComponent("v.json")) == Data("earlier\n".utf8))
        #expect(try Self.files(in: dir) == ["v.json"])
    }

    @Test func verifyCalibrationStops() throws {
        let dir = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        // Small views: the run stops at the next view it renders, and a debug build on a busy machine took
        // 10 s over one of the default size.
        let run = try Self.interrupt(["verify", "calibration", "--views", "500", "--size", "320x240", "--json", "c.json"], in: dir, after: 1)
        #expect(run.status == 130 && run.seconds < CLI.seconds(5), "status \(run.status) after \(run.seconds) s")
        #expect(run.stderrLines.count == 1 && run.stderrLines.first?.contains("verify calibration stopped by Ctrl-C") == true, "\(run.stderrLines)")
        #expect(try Self.files(in: dir).isEmpty)
    }

    @Test func calibrateStopsAndKeepsTheStoredCalibration() throws {
        let dir = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = dir.appendingPathComponent("Calibrations")
        try FileManager.default.createDirectory(at: store, withIntermediateDirectories: false)
        let stored = try Data(contentsOf: Self.fixtures.appendingPathComponent("aruco-original-photos/single/intrinsics.yml"))
        try stored.write(to: store.appendingPathComponent("cam.yaml"))
        // Many views, so that finding the boards takes a while.
        let views = dir.appendingPathComponent("views")
        try FileManager.default.createDirectory(at: views, withIntermediateDirectories: false)
        let boards = Self.fixtures.appendingPathComponent("chessboard-opencv-9x6")
        let images = try FileManager.default.contentsOfDirectory(atPath: boards.path).filter { $0.hasSuffix(".jpg") }
        for copy in 0..<20 {
            for image in images { try FileManager.default.copyItem(at: boards.appendingPathComponent(image), to: views.appendingPathComponent("\(copy)-\(image)")) }
        }
        let before = try Self.files(in: dir)
        // A board search under way is not cut short: the run stops once the images being searched (one
        // per job, 2 here) are done. In a debug build on a loaded machine one image took 2-4 s and the run
        // 15 s to stop, so the bound adds twice one image's search, timed here (`calibrate` of that image
        // alone, which finds its board and then refuses a single view).
        let clock = ContinuousClock(), start = clock.now
        let single = try CLI.run(["calibrate", "views/0-left01.jpg", "--inner", "9x6", "--square", "25mm", "--name", "one"], in: dir)
        let search = Self.seconds(clock.now - start)
        #expect(single.status != 0 && !FileManager.default.fileExists(atPath: store.appendingPathComponent("one.yaml").path))
        let run = try Self.interrupt(["calibrate", "views", "--inner", "9x6", "--square", "25mm", "--name", "cam", "--force", "--report", "r.pdf"],
                                     in: dir, after: 0.5)
        #expect(run.status == 130 && run.seconds < CLI.seconds(5) + 2 * search, "status \(run.status) after \(run.seconds) s (one image \(search) s)")
        #expect(run.stderrLines.count == 1 && run.stderrLines.first?.contains("calibration stopped by Ctrl-C") == true, "\(run.stderrLines)")
        #expect(try Data(contentsOf: store.appendingPathComponent("cam.yaml")) == stored)
        #expect(try Self.files(in: dir) == before)
    }

    @Test func captureStopsAndKeepsEverySavedFrame() throws {
        let dir = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        // A 145-frame video, every frame saved; Ctrl-C as soon as the first one is.
        let video = Self.fixtures.appendingPathComponent("aruco-original-photos/single/video.avi")
        let log = dir.appendingPathComponent("shots/capture.json")
        let run = try Self.interrupt(["capture", "--device", video.path, "--out", "shots", "--every", "0.001", "--count", "1000"], in: dir) { _ in
            FileManager.default.fileExists(atPath: log.path)
        }
        #expect(run.status == 0 && run.seconds < CLI.seconds(5), "status \(run.status) after \(run.seconds) s")
        #expect(run.stdout.contains("stopped by Ctrl-C"), "\(run.stdout)")
        let shots = dir.appendingPathComponent("shots")
        let (saved, images) = try CaptureLog.read(from: shots.appendingPathComponent("capture.json"))
        #expect(saved.images.count >= 1 && saved.images.count < 145, "\(saved.images.count) frames saved")
        for image in images { #expect(try GrayImage(contentsOf: image).width > 0, "\(image.lastPathComponent)") }
        #expect(try Self.files(in: shots) == (["capture.json"] + saved.images.map(\.file)).sorted(), "no other file, no temporary one")
    }
}

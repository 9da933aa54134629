import Foundation
import Testing
@testable import MarkerKit

/// No calibration is ever lost: `calibrate --force` and `calibrations import --force` are killed with
/// SIGKILL at random moments, many times, while they replace a stored calibration. Afterwards the file
/// is always the old one, byte for byte, or a complete new one; never partial, never missing.
@Suite struct KillDuringSaveTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures")

    /// Starts markerkit, kills it after `delay` seconds (or lets it finish first), and returns whether the
    /// kill came before it exited, and how long the run took.
    static func runAndKill(_ arguments: [String], in dir: URL, after delay: Double) throws -> (killed: Bool, seconds: Double) {
        let process = CLI.process(arguments, in: dir)
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        let clock = ContinuousClock()
        let start = clock.now
        try process.run()
        let deadline = start + .microseconds(Int64(delay * 1_000_000))
        while process.isRunning && clock.now < deadline { usleep(500) }
        let killed = process.isRunning
        if killed { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        let elapsed = clock.now - start
        return (killed && process.terminationReason == .uncaughtSignal,
                Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18)
    }

    /// Runs `arguments` `rounds` times over a stored calibration, killed at random moments spread over
    /// how long one run takes, and checks the stored file after each.
    func hammer(_ arguments: [String], rounds: Int, seed: UInt64) throws {
        let dir = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = dir.appendingPathComponent("Calibrations")
        try FileManager.default.createDirectory(at: store, withIntermediateDirectories: false)
        try FileManager.default.copyItem(at: Self.fixtures.appendingPathComponent("chessboard-opencv-9x6"), to: dir.appendingPathComponent("boards"))
        let target = store.appendingPathComponent("cam.yaml")
        // The earlier calibration, and how long one uninterrupted run takes.
        let old = Data("%YAML:1.0\n---\ncamera_matrix: !!opencv-matrix\n   rows: 3\n   cols: 3\n   dt: d\n   data: [ 500., 0., 320., 0., 500., 240., 0., 0., 1. ]\nimage_width: 640\nimage_height: 480\n".utf8)
        try old.write(to: dir.appendingPathComponent("source.yaml"))
        try old.write(to: target)
        let first = try Self.runAndKill(arguments, in: dir, after: 30)
        #expect(!first.killed, "an uninterrupted run finishes")
        // How long a whole run takes, kept to the fastest seen: a first run slowed by other work on the
        // machine would otherwise put most kills after the end (seen under the sanitizers).
        var span = first.seconds
        let complete = try CameraCalibration.read(from: target)
        var generator = SeededRandom(seed: seed)
        var killedMidway = 0, sawOld = 0, sawNew = 0
        for round in 0..<rounds {
            try old.write(to: target)
            let delay = Double.random(in: 0.05...1.1, using: &generator) * span
            let run = try Self.runAndKill(arguments, in: dir, after: delay)
            if run.killed { killedMidway += 1 } else { span = min(span, run.seconds) }
            let now = try Data(contentsOf: target)
            if now == old {
                sawOld += 1
            } else {
                let read = try #require(try? CameraCalibration.read(from: target), "round \(round): a partial file after a kill at \(delay) s")
                #expect(read.cameraMatrix == complete.cameraMatrix && read.distortion == complete.distortion, "round \(round)")
                sawNew += 1
            }
        }
        #expect(killedMidway >= rounds / 2, "most runs were killed before they finished")
        #expect(sawOld + sawNew == rounds)
    }

    @Test func calibrateForceKilledAtRandomNeverLosesTheCalibration() throws {
        try hammer(["calibrate", "boards", "--inner", "9x6", "--square", "25mm", "--name", "cam", "--force"], rounds: 40, seed: 11)
    }

    @Test func importForceKilledAtRandomNeverLosesTheCalibration() throws {
        // The new calibration to import: the fixture's own intrinsics.
        try hammer(["calibrations", "import", Self.fixtures.appendingPathComponent("aruco-original-photos/single/intrinsics.yml").path,
                    "--name", "cam", "--force"], rounds: 60, seed: 12)
    }
}

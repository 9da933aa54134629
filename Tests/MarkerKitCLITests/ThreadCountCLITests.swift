import Foundation
import Testing

/// The worker pool splits a frame's work over as many threads as it is given: what `detect` finds must
/// not depend on how many. MARKERKIT_CORES=8 gives the pool an 8-core machine's seven helpers (on this
/// 2-core machine they take turns, which tries the pool's hand-over harder than 8 free cores would).
@Suite struct ThreadCountCLITests {
    @Test func detectionsAreTheSameForAnyThreadCount() throws {
        let dir = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let fixtures = JobsCLITests.fixtures
        let frames = dir.appendingPathComponent("frames")
        // A render of several markers at 12 MP (many bands, many candidates), real photos, ArUco's video.
        #expect(try CLI.run(["render", "--profile", "phone", "--seed", "3", "--count", "1", "-o", "frames"], in: dir).status == 0)
        try FileManager.default.removeItem(at: frames.appendingPathComponent("truth.json"))
        for name in ["ubiquityrobotics_fiducials_403.jpg", "gsncodes_aruco-pose_pose_test.jpg"] {
            try FileManager.default.copyItem(at: fixtures.appendingPathComponent("real-photos/\(name)"), to: frames.appendingPathComponent(name))
        }
        try FileManager.default.copyItem(at: fixtures.appendingPathComponent("aruco-original-photos/single/video.avi"), to: frames.appendingPathComponent("video.avi"))
        var outputs: [String: String] = [:]
        for threads in ["1", "3", "8"] {
            let run = try CLI.run(["detect", "frames", "--jobs", "1", "--json", "threads-\(threads).json"], in: dir,
                                  environment: ["MARKERKIT_CORES": "8", "MARKERKIT_DETECTOR_THREADS": threads])
            #expect(run.status == 0, "\(threads) threads: \(run.stderr)")
            outputs[threads] = try String(contentsOf: dir.appendingPathComponent("threads-\(threads).json"), encoding: .utf8)
        }
        let markers = outputs["1"]!.components(separatedBy: "\"id\"").count - 1
        print("measured: \(markers) markers in each run with 1, 3 and 8 threads (2 is every other test's) on 8 simulated cores")
        #expect(markers > 50, "the frames hold many markers")
        for threads in ["3", "8"] { #expect(outputs[threads] == outputs["1"], "\(threads) threads against 1") }
    }
}

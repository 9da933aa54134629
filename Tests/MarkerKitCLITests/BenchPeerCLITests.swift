import Foundation
import Testing

/// `bench` and the newest OpenCV: its row on every marker case (here a Python whose cv2 is Debian's 4.6
/// stands in for the one `make peers` installs), one note when it is missing, and none for the parts it is
/// never timed in.
@Suite struct BenchPeerCLITests {
    @Test func thePeerHasARowOnEveryMarkerCaseAndIsOnlyMissedWhereItWouldRun() throws {
        let dir = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let markers = ["bench", "--only", "markers", "--quick", "--sizes", "640x480", "--repeats", "1", "--threads", "1"]
        let timed = try CLI.run(markers + ["--peer-python", "/usr/bin/python3"], in: dir)
        #expect(timed.status == 0, "\(timed.stderr)")
        // 0 markers, 10 markers, the cluttered frame with 10.
        let rows = timed.stdout.split(separator: "\n").filter { $0.hasPrefix("  opencv-4.6") }
        #expect(rows.count == 3 && rows.last?.contains("recall") == true, "\(timed.stdout)")
        #expect(timed.stdout.contains("640x480 clutter, 10 markers, 1 frame, 1 thread"), "\(timed.stdout)")
        #expect(!timed.stderr.contains("newest OpenCV was not timed"))
        let without = try CLI.run(markers, in: dir, environment: ["MARKERKIT_PEER_PYTHON": ""])
        #expect(without.status == 0 && without.stderr.contains("the newest OpenCV was not timed"), "\(without.stderr)")
        // The MJPEG part never times it: no note (one was printed before).
        let mjpeg = try CLI.run(["bench", "--only", "mjpeg", "--quick", "--repeats", "1"], in: dir, environment: ["MARKERKIT_PEER_PYTHON": ""])
        #expect(mjpeg.status == 0 && !mjpeg.stderr.contains("newest OpenCV"), "\(mjpeg.stderr)")
    }
}

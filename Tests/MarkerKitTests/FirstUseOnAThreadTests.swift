import BridgeStatus
import CVBridgeTestReferences
import Foundation
import MarkerKitKernels
import Testing
@testable import MarkerKit

/// The camera's steady state allocates nothing, also on a thread that runs detector work for the first time
/// many frames into a stream: which pool worker gets which job varies, so a worker may get its first one at
/// frame 50. BridgeStatus kept each thread's failure message in a std::string, whose destructor glibc
/// registers with one 32-byte calloc on the thread's first call (seen as 1 allocation in frames 21-120 of
/// the 1920x1080 MJPEG camera with the 8-worker pool, in CI). Counted per thread (thread_allocations.c).
@Suite struct FirstUseOnAThreadTests {
    @Test(.enabled(if: thread_allocations_available() != 0, "a sanitizer's runtime replaces malloc: counted in the plain build"))
    func aThreadsFirstDetectionAllocatesNothing() throws {
        let scene = try BenchmarkScenes.markers(count: 10, width: 640, height: 480, seed: 34)
        let work = Work(frame: try SceneRenderer().render(scene), boxSums: try #require(mkk_threshold_workspace_create()))
        defer { mkk_threshold_workspace_destroy(work.boxSums) }
        // Warm on this thread: the buffers belong to the workspaces, not to the thread.
        for _ in 0..<2 { try work.run() }
        let binary = work.binary.map { $0 }, warm = work.markers.map { $0 } // copies: sharing would copy on the next write
        // The same on a thread that has never run any of it.
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var allocations: Int64 = -1
        nonisolated(unsafe) var failure: (any Error)?
        let thread = Thread {
            thread_allocations_start()
            do { try work.run() } catch { failure = error }
            allocations = thread_allocations_stop()
            done.signal()
        }
        thread.start()
        done.wait()
        // The counter counts: one array made on a counted thread is one allocation.
        nonisolated(unsafe) var control: Int64 = -1
        let made = Thread {
            thread_allocations_start()
            let array = [Int](repeating: 7, count: 1000)
            control = thread_allocations_stop()
            precondition(array.count == 1000)
            done.signal()
        }
        made.start()
        done.wait()
        #expect(control == 1, "an array of 1000 Ints: \(control) allocations counted")
        #expect(failure == nil)
        #expect(work.binary == binary && work.markers == warm && warm.count >= 8, "\(work.markers.count) markers, \(warm.count) warm")
        #expect(allocations == 0, "heap allocations on the thread's first threshold and detection")
    }

    /// The message is held in a fixed buffer now: a longer one is cut, and one set from the buffer itself stays.
    @Test func aFailureMessageLongerThanTheBufferIsCut() {
        let long = String(repeating: "x", count: 5000) + "end"
        bridge_set_error(long)
        #expect(String(cString: bridge_last_error()) == String(repeating: "x", count: 1023))
        bridge_set_error("adaptive threshold: bad window")
        bridge_set_error(bridge_last_error())
        #expect(String(cString: bridge_last_error()) == "adaptive threshold: bad window")
        bridge_clear_error()
        #expect(String(cString: bridge_last_error()) == "")
    }

    /// One threshold band straight through the kernel (a bridge call on the thread for sure, whichever jobs
    /// the pool hands the thread), then a detection into a reused array; used by one thread at a time.
    final class Work: @unchecked Sendable {
        let frame: GrayImage, boxSums: OpaquePointer
        let detector = MarkerDetector(), workspace = DetectorWorkspace()
        let window: [Int32] = [13]
        var binary: [UInt8], markers: [MarkerDetection] = []

        init(frame: GrayImage, boxSums: OpaquePointer) {
            self.frame = frame
            self.boxSums = boxSums
            binary = [UInt8](repeating: 0, count: frame.width * frame.height)
            markers.reserveCapacity(64)
        }

        func run() throws {
            let status = frame.pixels.withUnsafeBufferPointer { gray in
                window.withUnsafeBufferPointer { windows in
                    binary.withUnsafeMutableBufferPointer { out in
                        mkk_adaptive_threshold_rows_in(boxSums, gray.baseAddress, Int32(frame.width), Int32(frame.height), Int32(frame.width),
                                                       windows.baseAddress, 1, 7, out.baseAddress, 0, Int32(frame.height))
                    }
                }
            }
            try Bridge.check(status)
            var none: StageTimings? = nil
            try detector.detect(in: frame, workspace: workspace, timings: &none, into: &markers)
        }
    }
}

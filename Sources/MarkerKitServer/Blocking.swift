import Foundation

/// Work that blocks (a calibration, a PDF) on a thread of its own, so that the server's few threads
/// go on answering.
public enum Blocking {
    static func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread { continuation.resume(with: Result { try work() }) }
        }
    }
}

extension Blocking {
    /// Runs async work from synchronous code (a command's `run`) and waits for it.
    public static func wait(_ work: @escaping @Sendable () async throws -> Void) throws {
        let done = DispatchSemaphore(value: 0)
        let box = Box()
        Task {
            do { try await work() } catch { box.error = error }
            done.signal()
        }
        done.wait()
        if let error = box.error { throw error }
    }

    private final class Box: @unchecked Sendable { var error: (any Error)? }
}

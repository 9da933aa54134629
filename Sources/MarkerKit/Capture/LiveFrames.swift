import Foundation

/// Never lags: a background thread reads a live source as fast as it delivers and keeps only the newest
/// frame; the consumer always gets the latest one, and every frame it never saw is counted as dropped.
public final class LiveFrames: @unchecked Sendable {
    private var source: FrameSource
    private let lock = NSCondition()
    private var latest: SourcedFrame?
    private var failure: Error?
    private var finished = false
    private var stopping = false
    public private(set) var dropped = 0
    public private(set) var delivered = 0

    public init(source: FrameSource) {
        self.source = source
        let thread = Thread { [unowned self] in self.pump() }
        thread.name = "markerkit.live-frames"
        thread.start()
    }

    private func pump() {
        while true {
            lock.lock()
            let stop = stopping
            lock.unlock()
            if stop { break }
            do {
                let frame = try source.next()
                lock.lock()
                if frame == nil { finished = true }
                if latest != nil, frame != nil { dropped += 1 }
                if let frame { latest = frame }
                lock.broadcast()
                lock.unlock()
                if frame == nil { break }
            } catch {
                lock.lock()
                failure = error
                finished = true
                lock.broadcast()
                lock.unlock()
                break
            }
        }
    }

    /// The newest frame not yet delivered; waits for one. nil at the end of the source.
    public func next() throws -> SourcedFrame? {
        lock.lock()
        defer { lock.unlock() }
        while latest == nil && !finished { lock.wait() }
        if let frame = latest {
            latest = nil
            delivered += 1
            return frame
        }
        if let failure { throw failure }
        return nil
    }

    public func stop() {
        lock.lock()
        stopping = true
        lock.unlock()
    }
}

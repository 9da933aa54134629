import Foundation

/// Never lags: a background thread reads a live source as fast as it delivers and keeps only the newest
/// frame; the consumer always gets the latest one, and every frame it never saw is counted as dropped.
/// Three frames circulate (the one being read, the newest, the one being used) and are swapped, never
/// copied: a stream of one size allocates nothing after its first frames.
public final class LiveFrames: @unchecked Sendable {
    private var source: FrameSource
    private let lock = NSCondition()
    /// The newest frame, when `fresh`; otherwise a spare for the reader to swap with.
    private var newest = SourcedFrame.empty
    private var fresh = false
    private var failure: Error?
    private var finished = false
    private var stopping = false
    /// True until the reading thread has returned.
    private var pumping = true
    private var droppedCount = 0
    private var deliveredCount = 0

    /// Frames the reader replaced before anyone took them (read under the lock: the reader counts them
    /// while the consumer, a server's status or a summary, asks).
    public var dropped: Int { lock.lock(); defer { lock.unlock() }; return droppedCount }
    public var delivered: Int { lock.lock(); defer { lock.unlock() }; return deliveredCount }

    public init(source: FrameSource) {
        self.source = source
        let thread = Thread { [unowned self] in self.pump() }
        thread.name = "markerkit.live-frames"
        thread.start()
    }

    private func pump() {
        defer {
            lock.lock()
            pumping = false
            lock.broadcast()
            lock.unlock()
        }
        var reading = SourcedFrame.empty
        while true {
            lock.lock()
            let stop = stopping
            lock.unlock()
            if stop { break }
            do {
                let got = try source.next(into: &reading)
                lock.lock()
                if got {
                    if fresh { droppedCount += 1 }
                    swap(&newest, &reading)
                    fresh = true
                } else {
                    finished = true
                }
                lock.broadcast()
                lock.unlock()
                if !got { break }
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

    /// The newest frame not yet delivered, swapped into `frame` (whose old memory goes back to the
    /// reader); waits for one. False at the end of the source.
    public func next(into frame: inout SourcedFrame) throws -> Bool {
        lock.lock()
        defer { lock.unlock() }
        while !fresh && !finished { lock.wait() }
        if fresh {
            swap(&frame, &newest)
            fresh = false
            deliveredCount += 1
            return true
        }
        if let failure { throw failure }
        return false
    }

    /// Stops reading and waits until the reading thread has returned (at most one frame, or the camera's
    /// 2 s timeout): a process must not exit while that thread is inside a decoder, whose libraries exit
    /// tears down (an MJPEG frame in OpenCV's JPEG decoder crashed at exit). Calling it again does nothing.
    public func stop() {
        lock.lock()
        stopping = true
        while pumping { lock.wait() }
        lock.unlock()
    }
}

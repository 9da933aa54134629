import Foundation

/// Frames from any source: the newest only from a camera (counting the rest as dropped), every frame
/// from a file.
public final class FrameFeed {
    private var source: FrameSource
    private let live: LiveFrames?
    private let clock = ContinuousClock()
    private let start: ContinuousClock.Instant
    public private(set) var processed = 0

    public init(source: FrameSource, isCamera: Bool) {
        self.source = source
        live = isCamera ? LiveFrames(source: source) : nil
        start = clock.now
    }

    /// The next frame into `frame` (its memory reused); false at the end.
    public func next(into frame: inout SourcedFrame) throws -> Bool {
        let got = try live.map { try $0.next(into: &frame) } ?? source.next(into: &frame)
        if got { processed += 1 }
        return got
    }

    public var dropped: Int { live?.dropped ?? 0 }

    /// Frames a camera sent that could not be read (damaged MJPEG) and were skipped (`V4L2Camera`).
    public var badFrames: Int { (source as? V4L2Camera)?.badFrames ?? 0 }

    /// Frames processed per second of wall time.
    public var framesPerSecond: Double {
        let elapsed = clock.now - start
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
        return seconds > 0 ? Double(processed) / seconds : 0
    }

    /// The camera behind the feed, when it is one.
    public var camera: V4L2Camera? { source as? V4L2Camera }

    /// Stops a camera's reading thread (which must be done before the process exits) and puts the
    /// camera's controls back as they were; idempotent.
    public func stop() {
        live?.stop()
        camera?.restoreSettings()
    }
}

/// A frame with where it came from: the file or device, its number in the stream (0 for an image),
/// and when it was taken in seconds from the start (a video's own timeline, a camera's clock).
public struct SourcedFrame: Sendable {
    public var source: String
    public var index: Int
    public var frame: Frame
    public var time: Double
    /// An image file's orientation tag (nil for files without one, videos and cameras).
    public var orientation: ImageOrientation?
    /// A camera's own timestamp of the frame (the driver's, CLOCK_MONOTONIC seconds, the start of the
    /// exposure for uvcvideo): comparable between cameras of one machine, unlike `time`. Nil for files.
    public var stamp: Double?

    /// When the frame was taken, for matching frames of several sources: the driver's timestamp, else `time`.
    public var instant: Double { stamp ?? time }

    public init(source: String, index: Int, frame: Frame, time: Double = 0, orientation: ImageOrientation? = nil) {
        self.source = source
        self.index = index
        self.frame = frame
        self.time = time
        self.orientation = orientation
    }

    /// Nothing read yet: what a source reads into (`FrameSource.next(into:)`).
    public static let empty = SourcedFrame(source: "", index: 0, frame: .empty)
}

/// Anything that hands out frames one after another: image files, video files, cameras.
public protocol FrameSource {
    /// What the frames come from, for messages.
    var name: String { get }
    /// Reads the next frame into `frame`, reusing its memory when the size repeats (a stream read into
    /// one kept frame allocates nothing of its own after the first); false at the end. A frame that
    /// cannot be read throws; the source then moves on, so the caller may report it and call again.
    mutating func next(into frame: inout SourcedFrame) throws -> Bool
}

extension FrameSource {
    /// The next frame in memory of its own, or nil at the end.
    public mutating func next() throws -> SourcedFrame? {
        var frame = SourcedFrame.empty
        return try next(into: &frame) ? frame : nil
    }
}

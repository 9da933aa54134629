/// A frame with where it came from: the file or device, its number in the stream (0 for an image),
/// and when it was taken in seconds from the start (a video's own timeline, a camera's clock).
public struct SourcedFrame: Sendable {
    public let source: String
    public let index: Int
    public let frame: Frame
    public let time: Double

    public init(source: String, index: Int, frame: Frame, time: Double = 0) {
        self.source = source
        self.index = index
        self.frame = frame
        self.time = time
    }
}

/// Anything that hands out frames one after another: image files, video files, later cameras.
public protocol FrameSource {
    /// What the frames come from, for messages.
    var name: String { get }
    /// The next frame, or nil at the end. A frame that cannot be read throws; the source then moves on,
    /// so the caller may report it and call again.
    mutating func next() throws -> SourcedFrame?
}

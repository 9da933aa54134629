/// A frame with where it came from: the file, and its number inside a video (0 for an image).
public struct SourcedFrame: Sendable {
    public let source: String
    public let index: Int
    public let frame: Frame
}

/// Anything that hands out frames one after another: image files, video files, later cameras.
public protocol FrameSource {
    /// What the frames come from, for messages.
    var name: String { get }
    /// The next frame, or nil at the end. A frame that cannot be read throws; the source then moves on,
    /// so the caller may report it and call again.
    mutating func next() throws -> SourcedFrame?
}

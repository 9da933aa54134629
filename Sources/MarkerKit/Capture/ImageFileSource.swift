import Foundation

/// Frames from image files, in the order given, read in colour (BGR) through OpenCV's imgcodecs.
public struct ImageFileSource: FrameSource {
    public let files: [URL]
    private var position = 0

    public init(files: [URL]) { self.files = files }

    public var name: String { files.count == 1 ? files[0].path : "\(files.count) images" }

    public mutating func next() throws -> SourcedFrame? {
        guard position < files.count else { return nil }
        let url = files[position]
        position += 1
        return SourcedFrame(source: url.relativePath, index: 0, frame: try Frame(contentsOf: url, format: .bgr8))
    }
}

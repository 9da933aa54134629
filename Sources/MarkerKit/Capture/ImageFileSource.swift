import Foundation

/// Frames from image files, in the order given, read in colour (BGR) through OpenCV's imgcodecs, as
/// viewers show them (each frame says the file's orientation tag).
public struct ImageFileSource: FrameSource {
    public let files: [URL]
    /// Each file's path and the name frames report, made once here rather than for every frame.
    private let paths: [ContiguousArray<CChar>]
    private let sources: [String]
    private var position = 0

    public init(files: [URL]) {
        self.files = files
        paths = files.map(\.path.utf8CString)
        sources = files.map(\.relativePath)
    }

    public var name: String { files.count == 1 ? files[0].path : "\(files.count) images" }

    public mutating func next(into sourced: inout SourcedFrame) throws -> Bool {
        guard position < files.count else { return false }
        let number = position
        position += 1
        sourced.orientation = try sourced.frame.read(path: paths[number], format: .bgr8)
        sourced.source = sources[number]
        sourced.index = 0
        sourced.time = 0
        return true
    }
}

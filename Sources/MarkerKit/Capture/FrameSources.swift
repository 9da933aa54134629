import Foundation

/// Opens what `--device` names: a V4L2 camera (`/dev/video0`), a video file, an image folder or image.
public enum FrameSources {
    public struct Options: Sendable {
        public var size: (Int, Int)?
        public var fps: Double?
        public var format: PixelConversion.CameraFormat?
        public var color = true
        public init() {}

        /// Frame rates a camera may be asked for.
        public static let frameRates = 0.001...1000.0

        /// Refuses a size or rate no camera can be asked for (sides as `ImageSize`, rates 0.001-1000).
        public func check() throws {
            if let (width, height) = size { _ = try ImageSize(width: width, height: height) }
            if let fps { try InputRange.check(fps, in: Self.frameRates, "a frame rate of") }
        }
    }

    /// Whether the name is a live camera (frames are dropped rather than queued).
    public static func isCamera(_ name: String) -> Bool {
        if name.hasPrefix("/dev/") { return true }
        var info = stat()
        return stat(name, &info) == 0 && (info.st_mode & S_IFMT) == S_IFCHR
    }

    public static func open(_ name: String, options: Options = Options()) throws -> FrameSource {
        try options.check()
        if isCamera(name) {
            return try V4L2Camera(path: name, size: options.size, fps: options.fps, format: options.format, color: options.color)
        }
        let catalog = InputCatalog(paths: [name])
        if let problem = catalog.problems.first {
            if case .missingInput = problem, !FileManager.default.fileExists(atPath: name) {
                throw MarkerKitError.missingInput("no camera, video or image folder at '\(name)' (see markerkit capture --list)")
            }
            throw problem
        }
        let images = catalog.items.compactMap { item -> URL? in if case .image(let url) = item { return url } else { return nil } }
        if images.count == catalog.items.count { return ImageFileSource(files: images) }
        guard catalog.items.count == 1, case .video(let url) = catalog.items[0] else {
            throw MarkerKitError.invalidArgument("'\(name)' mixes videos and images: give one video, or a folder of images")
        }
        return try VideoFileSource(url: url)
    }
}

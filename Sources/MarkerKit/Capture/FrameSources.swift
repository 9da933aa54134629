import Foundation

/// Opens what `--device` names: a V4L2 camera (`/dev/video0`), a video file, an image folder or image.
public enum FrameSources {
    public struct Options: Sendable {
        public var size: (Int, Int)?
        public var fps: Double?
        public var format: PixelConversion.CameraFormat?
        public var color = true
        /// Controls to set and whether to lock the camera (cameras only).
        public var setup = V4L2Camera.Setup()
        public init() {}

        /// Frame rates a camera may be asked for.
        public static let frameRates = 0.001...1000.0

        /// Refuses a size or rate no camera can be asked for (sides as `ImageSize`, rates 0.001-1000).
        public func check() throws {
            if let (width, height) = size { _ = try ImageSize(width: width, height: height) }
            if let fps { try InputRange.check(fps, in: Self.frameRates, "a frame rate of") }
        }
    }

    /// Whether the name is a live camera (frames are dropped rather than queued): a device path, a
    /// /dev/v4l/by-id/ link, or part of a camera's card name ("C920").
    public static func isCamera(_ name: String) -> Bool {
        if name.hasPrefix("/dev/") { return true }
        var info = stat()
        if stat(name, &info) == 0 { return (info.st_mode & S_IFMT) == S_IFCHR }
        return cardName(name) != nil
    }

    /// The device node a card name stands for, when `name` is not a path that exists.
    static func cardName(_ name: String) -> String? {
        guard !name.contains("/"), !FileManager.default.fileExists(atPath: name) else { return nil }
        return try? V4L2Device.node(matching: name)
    }

    public static func open(_ name: String, options: Options = Options()) throws -> FrameSource {
        try options.check()
        if isCamera(name) {
            var path = name
            if !name.hasPrefix("/dev/"), !FileManager.default.fileExists(atPath: name) {
                path = try V4L2Device.node(matching: name) ?? name
            }
            return try V4L2Camera(path: path, size: options.size, fps: options.fps, format: options.format, color: options.color,
                                  setup: options.setup)
        }
        let catalog = InputCatalog(paths: [name])
        if let problem = catalog.problems.first {
            if case .missingInput = problem, !FileManager.default.fileExists(atPath: name) {
                throw MarkerKitError.advised(.missingInput("no camera, video or image folder at '\(name)'"), .listCameras)
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

import ArgumentParser
import MarkerKit

/// How a camera is asked to deliver its frames (ignored for video files and image folders).
struct CameraOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Camera frame size in pixels, 16-8192 a side.", valueName: "WxH"), transform: ImageSize.parse) var size: ImageSize?
    @Option(help: ArgumentHelp("Camera frame rate, up to 1000.", valueName: "fps")) var fps: Double?
    @Option(help: ArgumentHelp("Camera pixel format: auto, yuyv, mjpeg or grey.", valueName: "format")) var format = PixelFormatArgument.auto

    /// The frames of `device` (a camera, a video file or an image folder), read by a feed that keeps only
    /// a camera's newest frame.
    func open(_ device: String, color: Bool) throws -> FrameFeed {
        FrameFeed(source: try FrameSources.open(device, options: try options(color: color)), isCamera: FrameSources.isCamera(device))
    }

    /// These options for `FrameSources.open`.
    func options(color: Bool) throws -> FrameSources.Options {
        var options = FrameSources.Options()
        options.size = size.map { ($0.width, $0.height) }
        if let fps { options.fps = try InputRange.check(fps, in: FrameSources.Options.frameRates, "--fps") }
        options.format = format.cameraFormat
        options.color = color
        return options
    }
}

/// Options that pick and shape a frame source: a camera, a video file or an image folder.
struct SourceOptions: ParsableArguments {
    @Option(help: ArgumentHelp("A camera (/dev/video0), a video file or a folder of images.", valueName: "device"))
    var device: String

    @OptionGroup var camera: CameraOptions
    @Option(help: ArgumentHelp("Turn the picture: 0, 90, 180 or 270 degrees clockwise (coordinates stay the sensor's).", valueName: "degrees"))
    var rotate = 0
    @Flag(help: "Mirror the picture left to right (coordinates stay the sensor's).") var mirror = false

    var isCamera: Bool { FrameSources.isCamera(device) }

    func transform() throws -> FrameTransform {
        guard [0, 90, 180, 270].contains(rotate) else { throw MarkerKitError.invalidArgument("--rotate \(rotate) must be 0, 90, 180 or 270") }
        return try FrameTransform(rotate: rotate, mirror: mirror)
    }

    func open(color: Bool) throws -> FrameFeed { try camera.open(device, color: color) }
}

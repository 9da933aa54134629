import ArgumentParser
import MarkerKit

/// How a camera is asked to deliver its frames (ignored for video files and image folders).
struct CameraOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Camera frame size in pixels, 16-8192 a side.", valueName: "WxH"), transform: ImageSize.parse) var size: ImageSize?
    @Option(help: ArgumentHelp("Camera frame rate, up to 1000.", valueName: "fps")) var fps: Double?
    @Option(help: ArgumentHelp("Camera pixel format: auto, yuyv, mjpeg or grey.", valueName: "format")) var format = PixelFormatArgument.auto
    @Option(name: .customLong("set"), help: ArgumentHelp("Set a camera control before streaming, as v4l2-ctl names it (capture --list shows them); repeatable, applied in order.", valueName: "name=value"))
    var controls: [String] = []

    /// The frames of `device` (a camera, a video file or an image folder), read by a feed that keeps only
    /// a camera's newest frame.
    func open(_ device: String, color: Bool, lock: CameraLock.Request? = nil) throws -> FrameFeed {
        FrameFeed(source: try FrameSources.open(device, options: try options(color: color, lock: lock)), isCamera: FrameSources.isCamera(device))
    }

    /// These options for `FrameSources.open`.
    func options(color: Bool, lock: CameraLock.Request? = nil) throws -> FrameSources.Options {
        var options = FrameSources.Options()
        options.size = size.map { ($0.width, $0.height) }
        if let fps { options.fps = try InputRange.check(fps, in: FrameSources.Options.frameRates, "--fps") }
        options.format = format.cameraFormat
        options.color = color
        for setting in controls { _ = try naming("--set ") { try V4L2Controls.split(setting) } } // the form is checked before a camera is opened
        options.setup.controls = controls
        options.setup.lock = lock
        return options
    }
}

/// Holding a camera still while views are captured (capture and serve lock by default).
struct LockOptions: ParsableArguments {
    @Flag(name: .customLong("no-lock"), help: "Leave the camera's autofocus, auto exposure and white balance alone (by default they are held where they settled and put back at the end).")
    var noLock = false
    @Option(help: ArgumentHelp("Hold the focus here instead of where the autofocus settled (focus_absolute's range, see capture --list).", valueName: "n")) var focus: Int?
    @Option(help: ArgumentHelp("Hold the exposure time here (exposure_time_absolute's range).", valueName: "n")) var exposure: Int?
    @Option(help: ArgumentHelp("Hold the gain here (gain's range).", valueName: "n")) var gain: Int?

    /// The lock to ask for, or nil with --no-lock.
    func request() throws -> CameraLock.Request? {
        if noLock {
            guard focus == nil, exposure == nil, gain == nil else {
                throw MarkerKitError.invalidArgument("--focus, --exposure and --gain hold the camera still: they do not go with --no-lock")
            }
            return nil
        }
        return CameraLock.Request(focus: focus.map(Int64.init), exposure: exposure.map(Int64.init), gain: gain.map(Int64.init))
    }
}

/// `--calibration` on capture and serve: the calibration the camera should match. The camera is compared
/// with the state the calibration records (size, focus, zoom, autofocus, card), as track does, and the
/// lock holds the focus it records unless --focus says otherwise.
struct CalibrationMatchOptions: ParsableArguments {
    @Option(help: ArgumentHelp("The calibration these views are for (a name in the store or a file): the camera is checked against the size, focus and zoom it records, and held at its focus.", valueName: "name|file"))
    var calibration: String?
    @Flag(name: .customLong("no-scale"), help: "With --calibration: refuse a camera streaming another size than the calibration's (by default a size of the same aspect ratio only gets a notice).")
    var noScale = false

    func stored() throws -> CameraCalibration? {
        guard let calibration else {
            if noScale { throw MarkerKitError.invalidArgument("--no-scale goes with --calibration") }
            return nil
        }
        return try CalibrationStore.default.resolve(calibration)
    }

    /// The lock, holding the stored calibration's focus when the user named none.
    static func request(_ request: CameraLock.Request?, holding stored: CameraCalibration?) -> CameraLock.Request? {
        guard var request, request.focus == nil, let focus = stored?.camera?.focus else { return request }
        request.focus = focus
        note("holding the focus at \(focus), where calibration '\(stored?.name ?? "")' was made (--focus N holds another)")
        return request
    }

    /// Notices and warnings for the camera against the stored calibration; another aspect ratio (or another
    /// size with --no-scale) is refused.
    func check(_ stored: CameraCalibration?, camera: V4L2Camera?) throws {
        guard let stored, let camera else { return }
        let fit = try CalibrationFit(stored, width: camera.width, height: camera.height, live: CameraState(camera: camera), scale: !noScale)
        fit.notices.forEach(note)
        fit.warnings.forEach(warn)
    }
}

/// Options that pick and shape a frame source: a camera, a video file or an image folder.
struct SourceOptions: ParsableArguments {
    @Option(help: ArgumentHelp("A camera (/dev/video0, a /dev/v4l/by-id/ link, or part of its name such as C920), a video file or a folder of images.", valueName: "device"))
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

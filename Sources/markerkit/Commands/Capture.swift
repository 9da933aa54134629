import ArgumentParser
import Foundation
import MarkerKit

struct Capture: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Webcams through V4L2: list them, save frames, or let the assistant capture calibration views.",
        discussion: """
        Without a board, frames are saved on a key press (space or enter; q quits) or every --every \
        seconds. With --board and --auto, a view is saved only when the board is found, held still for \
        half a second, sharp, and new (its position, size and skew differ from every saved view, as in \
        ROS's calibrator); coverage bars show how much of each range is covered (with a ChArUco board, \
        which may leave the image, also how many of the image's corners views reached), and with a display \
        a preview window shows the board as found. It stops at --count \
        or when coverage is full, writes DIR/capture.json (which 'markerkit calibrate DIR' reads), and with \
        --calibrate NAME calibrates at once. Ctrl-C stops; every saved frame and the log stay. With several \
        --device (a rig), frames are matched across the cameras by their driver timestamps (a video file's by \
        its timeline), a set is kept when they lie within --max-gap of each other, the first camera's assistant \
        keeps its view and every other camera finds the board; each camera's views go to DIR/NAME/ and \
        'markerkit calibrate --rig DIR/NAME1 DIR/NAME2' (or --calibrate) solves the rig.

        Examples:
          markerkit capture --list
          markerkit capture --device /dev/video0 --size 1280x720 --out shots/ --every 2 --count 10
          markerkit capture --device /dev/video0 --out views/ --board board.json --auto --calibrate webcam
          markerkit capture --device C920 --calibration webcam --out more/ --board board.json --auto
          markerkit capture --device recording.mp4 --out views/ --board board.json --auto --count 20
          markerkit capture --device /dev/video0 --device /dev/video2 --camera-names left,right --out pair/ --board board.json --auto --calibrate stereo
        """
    )

    @Flag(help: "List every video device with its formats, sizes, rates and controls.") var list = false
    @Option(name: .customLong("device"), help: ArgumentHelp("A camera (/dev/video0, a /dev/v4l/by-id/ link, or part of its name such as C920), a video file or a folder of images; several for a rig.", valueName: "device")) var devices: [String] = []
    @OptionGroup var rig: RigCaptureOptions
    @OptionGroup var camera: CameraOptions
    @OptionGroup var lock: LockOptions
    @OptionGroup var match: CalibrationMatchOptions
    @Option(name: .customLong("out"), help: ArgumentHelp("Folder for the saved frames and capture.json (created when missing).", valueName: "dir")) var out: String?
    @Option(help: "How many frames or views to save, 1-10000.") var count: Int = 30
    @Option(help: ArgumentHelp("The board spec from 'markerkit generate checkerboard' or 'generate charuco'.", valueName: "board.json")) var board: String?
    @Flag(help: "With --board: save views by themselves when they pass the gates.") var auto = false
    @Option(help: ArgumentHelp("Without a board: save a frame every this many seconds (0 to 86400).", valueName: "seconds")) var every: Double?
    @Option(help: ArgumentHelp("With --auto: stop once a calibration from the kept views is this sure everywhere but the outer 10% of the image (its projection uncertainty, 0.001-100 px, e.g. 0.3px).", valueName: "pixels"),
            transform: PixelsArgument.parse)
    var untilSigma: Double?
    @Option(help: ArgumentHelp("Calibrate from the saved views and store the result under this name.", valueName: "name")) var calibrate: String?
    @Flag(help: "Replace files that exist in --out, and an existing calibration with --calibrate.") var force = false

    func run() throws {
        if list { return print(devices.isEmpty ? V4L2Device.listing() : V4L2Device.listing(of: devices)) }
        guard let device = devices.first else { throw MarkerKitError.invalidArgument("give --device (a camera, video file or image folder), or --list") }
        if devices.count > 1 { return try runRig() }
        guard let out else { throw MarkerKitError.invalidArgument("give --out DIR for the saved frames") }
        try InputRange.check(count, in: CaptureSession.counts, "--count")
        if let every { try InputRange.check(every, in: CaptureSession.intervals, "--every") }
        if auto && board == nil { throw MarkerKitError.invalidArgument("--auto needs --board board.json") }
        if untilSigma != nil && !auto { throw MarkerKitError.invalidArgument("--until-sigma goes with --auto") }
        let location = try calibrate.map { name in try naming("--calibrate: ") { try CalibrationLocation(name: name) } }
        if calibrate != nil && board == nil { throw MarkerKitError.invalidArgument("--calibrate needs --board board.json") }
        let target = try board.map { try BoardSpec.read(from: URL(fileURLWithPath: $0)).calibrationTarget() }
        try location?.checkDestination(force: force)
        let trigger: CaptureSession.Trigger = auto ? .assistant : every.map { .every($0) } ?? .onRequest
        let keys = trigger == .onRequest ? try KeyReader() : nil
        if trigger == .onRequest && keys == nil {
            throw MarkerKitError.invalidArgument("without --auto, give --every SECONDS (no terminal to press keys in)")
        }
        var session = try CaptureSession(directory: URL(fileURLWithPath: out), source: device, target: target, count: count, trigger: trigger,
                                         untilSigma: untilSigma)
        try session.checkDestination(force: force)
        let stored = try match.stored()
        let lockRequest = CalibrationMatchOptions.request(try lock.request(), holding: stored)
        let feed = try camera.open(device, color: true, lock: lockRequest)
        defer { feed.stop() } // also when a frame throws: the reading thread must be done before exit
        reportCameraSetup(feed.camera, locking: lockRequest != nil)
        try match.check(stored, camera: feed.camera)
        let directory = try OutputFolder(out, option: "--out").url
        let preview = PreviewWindow(title: "markerkit capture")
        Interrupt.install()
        let outcome = try keepingViews(in: directory, kept: { session.log.images.count }) { try session.run(feed: feed, shouldStop: { Interrupt.requested }, request: {
            switch keys?.poll() {
            case .save: return true
            case .quit: Interrupt.requested = true; return false
            case nil: return false
            }
        }, onUpdate: { update in
            if let line = CaptureStatus.line(update, trigger: trigger, feed: feed) { status(line) }
            if preview.isAvailable {
                var picture = update.frame.frame
                try CaptureOverlay.draw(on: &picture, update)
                if preview.show(picture) == "q" { Interrupt.requested = true }
            }
        }) }
        feed.stop()
        endStatus()
        keys?.restore()
        let saved = outcome.saved.count
        print("saved \(counted(saved, "frame")) in \(directory.relativePath)/ with capture.json (\(feed.processed) frames seen, \(feed.dropped) dropped\(feed.badFrames > 0 ? ", \(feed.badFrames) bad skipped" : ""))\(Interrupt.requested ? ", stopped by Ctrl-C" : "")")
        if let u = outcome.uncertainty { print(CaptureStatus.uncertaintyLine(u, target: untilSigma)) }
        if let calibrate, let target, let location {
            var job = CalibrationJob(target: target, images: outcome.saved, name: location.name ?? calibrate)
            job.camera = outcome.log.camera
            let result = try job.run()
            for line in CalibrationSummary.lines(for: result.calibration) { print(line) }
            try location.write(result.calibration, force: force)
            print("stored \(location.shown)")
        }
    }

    /// Runs the capture; a camera lost on the way ends it with one line that says what was kept.
    private func keepingViews(in directory: URL, kept: () -> Int, _ body: () throws -> CaptureSession.Outcome) throws -> CaptureSession.Outcome {
        do {
            return try body()
        } catch MarkerKitError.cameraLost(let message) {
            endStatus()
            let kept = kept()
            throw MarkerKitError.cameraLost("\(message); \(counted(kept, "view")) kept in \(directory.relativePath)/" + (kept > 0 ? " with capture.json" : ""))
        }
    }
}

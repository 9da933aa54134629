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
        ROS's calibrator); four coverage bars show how much of each range is covered, and with a display \
        a preview window shows the board as found. It stops at --count \
        or when coverage is full, writes DIR/capture.json (which 'markerkit calibrate DIR' reads), and with \
        --calibrate NAME calibrates at once. Ctrl-C stops; every saved frame and the log stay.

        Examples:
          markerkit capture --list
          markerkit capture --device /dev/video0 --size 1280x720 --out shots/ --every 2 --count 10
          markerkit capture --device /dev/video0 --out views/ --board board.json --auto --calibrate webcam
          markerkit capture --device recording.mp4 --out views/ --board board.json --auto --count 20
        """
    )

    @Flag(help: "List every video device with its formats, sizes and rates.") var list = false
    @Option(help: ArgumentHelp("A camera (/dev/video0), a video file or a folder of images.", valueName: "device")) var device: String?
    @Option(help: ArgumentHelp("Camera frame size in pixels.", valueName: "WxH")) var size: String?
    @Option(help: ArgumentHelp("Camera frame rate.", valueName: "fps")) var fps: Double?
    @Option(help: ArgumentHelp("Camera pixel format: auto, yuyv, mjpeg or grey.", valueName: "format")) var format = "auto"
    @Option(name: .customLong("out"), help: ArgumentHelp("Folder for the saved frames and capture.json (created when missing).", valueName: "dir")) var out: String?
    @Option(help: "How many frames or views to save.") var count: Int = 30
    @Option(help: ArgumentHelp("The board spec from 'markerkit generate checkerboard'.", valueName: "board.json")) var board: String?
    @Flag(help: "With --board: save views by themselves when they pass the gates.") var auto = false
    @Option(help: ArgumentHelp("Without a board: save a frame every this many seconds.", valueName: "seconds")) var every: Double?
    @Option(help: ArgumentHelp("Calibrate from the saved views and store the result under this name.", valueName: "name")) var calibrate: String?
    @Flag(help: "Replace an existing calibration with --calibrate.") var force = false

    func run() throws {
        if list {
            print(V4L2Device.listing())
            return
        }
        guard let device else { throw MarkerKitError.invalidArgument("give --device (a camera, video file or image folder), or --list") }
        guard let out else { throw MarkerKitError.invalidArgument("give --out DIR for the saved frames") }
        guard (1...10_000).contains(count) else { throw MarkerKitError.invalidArgument("--count \(count) is outside 1-10000") }
        if auto && board == nil { throw MarkerKitError.invalidArgument("--auto needs --board board.json") }
        if let calibrate { try CalibrationStore.validate(name: calibrate) }
        if calibrate != nil && board == nil { throw MarkerKitError.invalidArgument("--calibrate needs --board board.json") }
        let checkerboard = try board.map { try BoardSpec.read(from: URL(fileURLWithPath: $0)).checkerboard() }
        if let calibrate, !force, FileManager.default.fileExists(atPath: CalibrationStore.default.url(for: calibrate).path) {
            throw MarkerKitError.cannotWrite("'\(CalibrationStore.default.url(for: calibrate).relativePath)' exists: add --force to replace it")
        }
        let sourceOptions = try SourceOptions.parse(["--device", device, "--format", format] + (size.map { ["--size", $0] } ?? [])
                                                    + (fps.map { ["--fps", String($0)] } ?? []))
        let isCamera = FrameSources.isCamera(device)
        let keys = (!auto && every == nil) ? try KeyReader() : nil
        if !auto && every == nil && keys == nil {
            throw MarkerKitError.invalidArgument("without --auto, give --every SECONDS (no terminal to press keys in)")
        }
        let feed = FrameFeed(source: try sourceOptions.open(color: true), isCamera: isCamera)
        defer { feed.stop() } // also when a frame throws: the reading thread must be done before exit
        let directory = try Detect.makeDirectory(out)
        var log = CaptureLog(source: device, board: checkerboard)
        var assistant = checkerboard.map { board -> CaptureAssistant in
            var settings = CaptureAssistant.Settings(board: board)
            settings.count = count
            return CaptureAssistant(settings: settings)
        }
        let preview = PreviewWindow(title: "markerkit capture")
        Interrupt.install()
        var lastSaved: Double?
        var saved: [URL] = []
        var sourced = SourcedFrame.empty
        while !Interrupt.requested, saved.count < count, try feed.next(into: &sourced) {
            var save = false
            var parameters: CaptureAssistant.ViewParameters?
            var sharpness: Double?
            if auto, var current = assistant {
                let verdict = try current.consider(sourced)
                assistant = current
                if verdict == .kept, let view = current.kept.last {
                    save = true
                    parameters = view.parameters
                    sharpness = view.sharpness
                }
                let bars = zip(["X", "Y", "Size", "Skew"], current.coverage).map { name, value in
                    "\(name) [" + String(repeating: "#", count: Int(value * 10)) + String(repeating: "-", count: 10 - Int(value * 10)) + "]"
                }.joined(separator: " ")
                status("\(bars) views \(current.kept.count)/\(count) \(verdict) \(String(format: "%.1f fps", feed.framesPerSecond)) dropped \(feed.dropped)")
                if current.isComplete && !save { break }
            } else if let every {
                save = lastSaved.map { sourced.time - $0 >= every } ?? true
            } else if let keys {
                switch keys.poll() {
                case .save: save = true
                case .quit: Interrupt.requested = true
                case .none: break
                }
                status("frames \(feed.processed), saved \(saved.count)/\(count): space saves, q quits \(String(format: "%.1f fps", feed.framesPerSecond))")
            }
            if preview.isAvailable {
                var picture = sourced.frame
                if let corners = assistant?.lastCorners { try MarkerAnnotator().drawPoints(&picture, corners, color: save ? (0, 220, 0) : (0, 180, 255)) }
                if preview.show(picture) == "q" { Interrupt.requested = true }
            }
            guard save else { continue }
            lastSaved = sourced.time
            let name = String(format: "view_%03d.png", saved.count)
            var files = OutputFiles()
            files.add(try sourced.frame.encoded(as: "png"), at: directory.appendingPathComponent(name))
            log.images.append(CaptureLog.Entry(file: name, time: sourced.time, parameters: parameters, sharpness: sharpness))
            files.add(try log.encoded(), at: directory.appendingPathComponent("capture.json"))
            try files.commit()
            saved.append(directory.appendingPathComponent(name))
            if auto, let assistant, assistant.isComplete { break }
        }
        feed.stop()
        endStatus()
        keys?.restore()
        print("saved \(saved.count) frame\(saved.count == 1 ? "" : "s") in \(directory.relativePath)/ with capture.json (\(feed.processed) frames seen, \(feed.dropped) dropped)\(Interrupt.requested ? ", stopped by Ctrl-C" : "")")
        if let calibrate, let checkerboard {
            let calibrator = Calibrator(board: checkerboard)
            let (views, width, height) = try calibrator.findBoards(in: saved)
            let result = try calibrator.calibrate(views: views, width: width, height: height, name: calibrate)
            for line in CalibrationSummary.lines(for: result.calibration) { print(line) }
            print("stored \(try CalibrationStore.default.save(result.calibration, force: force).relativePath)")
        }
    }
}

/// Single key presses from the terminal, without waiting for Enter; the terminal is restored after.
final class KeyReader {
    enum Key { case save, quit }
    private var original = termios()

    init?() throws {
        guard isatty(0) == 1 else { return nil }
        tcgetattr(0, &original)
        var raw = original
        raw.c_lflag &= ~tcflag_t(ICANON | ECHO)
        tcsetattr(0, TCSANOW, &raw)
        fcntl(0, F_SETFL, fcntl(0, F_GETFL) | O_NONBLOCK)
    }

    func poll() -> Key? {
        var byte: UInt8 = 0
        guard read(0, &byte, 1) == 1 else { return nil }
        switch byte {
        case UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\r"): return .save
        case UInt8(ascii: "q"), UInt8(ascii: "Q"): return .quit
        default: return nil
        }
    }

    func restore() {
        tcsetattr(0, TCSANOW, &original)
        fcntl(0, F_SETFL, fcntl(0, F_GETFL) & ~O_NONBLOCK)
    }

    deinit { restore() }
}

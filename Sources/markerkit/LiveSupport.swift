import ArgumentParser
import Foundation
import MarkerKit

/// Ctrl-C asks the running loop to stop; the loop finishes its current frame and writes what it has.
enum Interrupt {
    nonisolated(unsafe) static var requested = false

    /// From here on Ctrl-C (or SIGTERM) asks the command to stop at its next safe point instead of killing
    /// it mid-write; a second Ctrl-C stops at once (nothing half-written stays: files are renamed into place).
    static func install() {
        // A parent may have started us with these signals blocked (a test runner's worker thread does).
        var unblock = sigset_t()
        sigemptyset(&unblock)
        sigaddset(&unblock, SIGINT)
        sigaddset(&unblock, SIGTERM)
        pthread_sigmask(SIG_UNBLOCK, &unblock, nil)
        for signalNumber in [SIGINT, SIGTERM] {
            signal(signalNumber) { _ in
                if Interrupt.requested { _exit(130) }
                Interrupt.requested = true
            }
        }
    }

    /// A safe point of a long run that writes only at its end: after Ctrl-C, stops it with nothing written.
    static func checkpoint(_ what: String) throws {
        if requested { throw MarkerKitError.interrupted("\(what) stopped by Ctrl-C; nothing written, earlier files untouched") }
    }
}

/// Options that pick and shape a frame source: a camera, a video file or an image folder.
struct SourceOptions: ParsableArguments {
    @Option(help: ArgumentHelp("A camera (/dev/video0), a video file or a folder of images.", valueName: "device"))
    var device: String

    @Option(help: ArgumentHelp("Camera frame size in pixels.", valueName: "WxH")) var size: String?
    @Option(help: ArgumentHelp("Camera frame rate.", valueName: "fps")) var fps: Double?
    @Option(help: ArgumentHelp("Camera pixel format: auto, yuyv, mjpeg or grey.", valueName: "format")) var format = "auto"
    @Option(help: ArgumentHelp("Turn the picture: 0, 90, 180 or 270 degrees clockwise (coordinates stay the sensor's).", valueName: "degrees"))
    var rotate = 0
    @Flag(help: "Mirror the picture left to right (coordinates stay the sensor's).") var mirror = false

    func transform() throws -> FrameTransform { try FrameTransform(rotate: rotate, mirror: mirror) }

    func open(color: Bool) throws -> FrameSource {
        var options = FrameSources.Options()
        options.size = try size.map(parseImageSize)
        if let fps { guard fps.isFinite, fps > 0, fps <= 1000 else { throw MarkerKitError.invalidArgument("--fps \(fps) is outside 0-1000") }; options.fps = fps }
        if format != "auto" {
            guard let f = PixelConversion.CameraFormat(rawValue: format.lowercased()) else {
                throw MarkerKitError.invalidArgument("--format '\(format)' is not auto, yuyv, mjpeg or grey")
            }
            options.format = f
        }
        options.color = color
        return try FrameSources.open(device, options: options)
    }
}

/// Frames from any source: the newest only from a camera (counting the rest as dropped), every frame
/// from a file.
final class FrameFeed {
    private var source: FrameSource
    private let live: LiveFrames?
    private let clock = ContinuousClock()
    private let start: ContinuousClock.Instant
    private(set) var processed = 0

    init(source: FrameSource, isCamera: Bool) {
        self.source = source
        live = isCamera ? LiveFrames(source: source) : nil
        start = clock.now
    }

    /// The next frame into `frame` (its memory reused); false at the end.
    func next(into frame: inout SourcedFrame) throws -> Bool {
        let got = try live.map { try $0.next(into: &frame) } ?? source.next(into: &frame)
        if got { processed += 1 }
        return got
    }

    var dropped: Int { live?.dropped ?? 0 }

    /// Frames processed per second of wall time.
    var framesPerSecond: Double {
        let elapsed = clock.now - start
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
        return seconds > 0 ? Double(processed) / seconds : 0
    }

    func stop() { live?.stop() }
}

/// One status line on stderr, rewritten in place, when stderr is a terminal.
/// The line is only made when stderr is a terminal (track and capture make one per frame).
func status(_ line: @autoclosure () -> String) {
    guard isatty(2) == 1 else { return }
    FileHandle.standardError.write(Data("\r\(line())\u{1B}[K".utf8))
}

func endStatus() {
    guard isatty(2) == 1 else { return }
    FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
}

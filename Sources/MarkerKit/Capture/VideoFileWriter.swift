import CVBridge
import Foundation

/// Writes BGR frames into a video file through OpenCV's videoio (Motion JPEG in AVI by default). The
/// file appears under its name only when `finish()` succeeds; until then it is a temporary file beside it.
public final class VideoFileWriter {
    public let url: URL
    private let temporary: URL
    private var writer: OpaquePointer?
    private let width: Int, height: Int

    public init(url: URL, width: Int, height: Int, framesPerSecond: Double, fourcc: String = "MJPG") throws {
        // Whether an existing file may be replaced is the command's to decide, before the first frame.
        try OutputFiles.checkDestination(url, force: true)
        self.url = url
        self.width = width
        self.height = height
        temporary = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).\(getpid()).tmp.\(url.pathExtension)")
        var handle: OpaquePointer?
        try Bridge.check(cvb_video_writer_open(temporary.path, fourcc, framesPerSecond > 0 ? framesPerSecond : 25, Int32(width),
                                               Int32(height), &handle)) { .cannotWrite("cannot write video '\(url.path)': \($0)") }
        writer = handle
    }

    deinit {
        if writer != nil {
            cvb_video_writer_close(writer)
            unlink(temporary.path)
        }
    }

    public func write(_ frame: Frame) throws {
        guard frame.format == .bgr8, frame.width == width, frame.height == height else {
            throw MarkerKitError.badInput("video '\(url.path)': frames change size or format mid-stream")
        }
        let status = frame.bytes.withUnsafeBufferPointer {
            cvb_video_writer_write(writer, $0.baseAddress, Int32(width), Int32(height), Int32(frame.stride))
        }
        try Bridge.check(status) { .cannotWrite("cannot write video '\(url.path)': \($0)") }
    }

    /// Closes the file and moves it into place.
    public func finish() throws {
        cvb_video_writer_close(writer)
        writer = nil
        guard rename(temporary.path, url.path) == 0 else {
            unlink(temporary.path)
            throw MarkerKitError.cannotWrite("cannot write video '\(url.path)': \(String(cString: strerror(errno)))")
        }
    }
}

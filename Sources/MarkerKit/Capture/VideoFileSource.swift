import CVBridge
import Foundation

/// Frames from a video file through OpenCV's videoio (whatever its FFmpeg back-end decodes), as BGR.
public final class VideoFileSource: FrameSource {
    public let url: URL
    private var video: OpaquePointer?
    private var index = 0

    public init(url: URL) throws {
        self.url = url
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw MarkerKitError.missingInput("cannot read video '\(url.path)': no such file")
        }
        var handle: OpaquePointer?
        guard cvb_video_open(url.path, &handle) >= 0, handle != nil else {
            throw MarkerKitError.badInput("cannot read video '\(url.path)': not a video OpenCV can decode")
        }
        video = handle
    }

    deinit { cvb_video_close(video) }

    public var name: String { url.path }

    /// Frames per second as the file states it (0 when it does not).
    public var framesPerSecond: Double { cvb_video_fps(video) }

    public func next() throws -> SourcedFrame? {
        var image = cvb_image()
        let status = cvb_video_read(video, &image)
        defer { cvb_image_release(&image) }
        guard status >= 0 else {
            throw MarkerKitError.badInput("video '\(url.path)' frame \(index): \(String(cString: cvb_last_error()))")
        }
        guard status == 1 else { return nil }
        defer { index += 1 }
        let fps = framesPerSecond > 0 ? framesPerSecond : 25
        return SourcedFrame(source: url.relativePath, index: index, frame: Frame(bridged: image, format: .bgr8), time: Double(index) / fps)
    }
}

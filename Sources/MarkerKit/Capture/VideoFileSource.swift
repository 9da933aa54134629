import BridgeStatus
import CVBridge
import Foundation

/// Frames from a video file through OpenCV's videoio (whatever its FFmpeg back-end decodes), as BGR.
public final class VideoFileSource: FrameSource {
    public let url: URL
    private var video: OpaquePointer?
    private var index = 0
    /// The name frames report and the stated frame rate, taken once.
    private let source: String
    private let fps: Double

    public init(url: URL) throws {
        self.url = url
        source = url.relativePath
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw MarkerKitError.missingInput("cannot read video '\(url.path)': no such file")
        }
        var handle: OpaquePointer?
        let status = cvb_video_open(url.path, &handle)
        guard status >= 0, handle != nil else {
            let reason = status == BRIDGE_ERR_UNAVAILABLE.rawValue ? Bridge.lastError : "not a video OpenCV can decode"
            throw MarkerKitError.badInput("cannot read video '\(url.path)': \(reason)")
        }
        video = handle
        fps = cvb_video_fps(handle)
    }

    deinit { cvb_video_close(video) }

    public var name: String { url.path }

    /// Frames per second as the file states it (0 when it does not).
    public var framesPerSecond: Double { fps }

    public func next(into sourced: inout SourcedFrame) throws -> Bool {
        var image = cvb_image()
        let status = cvb_video_read(video, &image)
        try Bridge.check(status) { .badInput("video '\(url.path)' frame \(index): \($0)") }
        guard status == 1 else { return false }
        defer { index += 1 }
        sourced.frame.copy(bridged: image, format: .bgr8)
        sourced.source = source
        sourced.index = index
        sourced.time = Double(index) / (fps > 0 ? fps : 25)
        return true
    }
}

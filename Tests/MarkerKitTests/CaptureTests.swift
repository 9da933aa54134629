import BridgeStatus
import CVBridge
import Foundation
import Testing
@testable import MarkerKit

@Suite struct CaptureTests {
    /// YUYV: Y0 U Y1 V per two pixels.
    func yuyv(_ pixels: [(y: UInt8, u: UInt8, v: UInt8)], width: Int, padding: Int = 0) -> [UInt8] {
        var bytes: [UInt8] = []
        for row in stride(from: 0, to: pixels.count, by: width) {
            for pair in stride(from: row, to: row + width, by: 2) {
                bytes += [pixels[pair].y, pixels[pair].u, pixels[pair + 1].y, pixels[pair].v]
            }
            bytes += [UInt8](repeating: 0, count: padding)
        }
        return bytes
    }

    @Test func yuyvGivesTheLumaAsGrayAndBT601Colour() throws {
        let pixels: [(y: UInt8, u: UInt8, v: UInt8)] = [(16, 128, 128), (235, 128, 128), (81, 90, 240), (81, 90, 240)]
        let bytes = yuyv(pixels, width: 2, padding: 4)
        let gray = try bytes.withUnsafeBytes { try PixelConversion.frame(from: $0, format: .yuyv, width: 2, height: 2, bytesPerLine: 8, color: false) }
        #expect(gray.format == .gray8 && gray.bytes == [16, 235, 81, 81])
        let bgr = try bytes.withUnsafeBytes { try PixelConversion.frame(from: $0, format: .yuyv, width: 2, height: 2, bytesPerLine: 8, color: true) }
        // Webcam YUYV is BT.601 video range: Y 16 is black, 235 white, neutral chroma gives gray.
        #expect(Array(bgr.bytes[0..<6]) == [0, 0, 0, 255, 255, 255])
        // Y 81, U 90, V 240 is red: R = 1.164 (Y - 16) + 1.596 (V - 128) = 254, G and B clip at 0.
        let (b, g, r) = (Int(bgr.bytes[6]), Int(bgr.bytes[7]), Int(bgr.bytes[8]))
        #expect(r >= 250 && g <= 2 && b <= 2, "BGR \(b) \(g) \(r)")
    }

    @Test func greyAndMJPEGBuffers() throws {
        let grey: [UInt8] = [1, 2, 3, 9, 4, 5, 6, 9] // 3x2 with one byte of padding per line
        let gray = try grey.withUnsafeBytes { try PixelConversion.frame(from: $0, format: .grey, width: 3, height: 2, bytesPerLine: 4, color: false) }
        #expect(gray.bytes == [1, 2, 3, 4, 5, 6])
        let bgr = try grey.withUnsafeBytes { try PixelConversion.frame(from: $0, format: .grey, width: 3, height: 2, bytesPerLine: 4, color: true) }
        #expect(bgr.bytes == [1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4, 5, 5, 5, 6, 6, 6])
        // An MJPEG frame is a JPEG: encode a picture, decode it as a camera buffer.
        let picture = Frame(width: 16, height: 8, stride: 16, format: .gray8, bytes: (0..<128).map { UInt8($0 < 64 ? 40 : 200) })
        let jpeg = try picture.encoded(as: "jpg")
        let decoded = try jpeg.withUnsafeBytes { try PixelConversion.frame(from: $0, format: .mjpeg, width: 16, height: 8, bytesPerLine: 0, color: false) }
        #expect(decoded.width == 16 && decoded.height == 8)
        #expect(zip(decoded.bytes, picture.bytes).allSatisfy { abs(Int($0) - Int($1)) <= 8 })
        let colour = try jpeg.withUnsafeBytes { try PixelConversion.frame(from: $0, format: .mjpeg, width: 16, height: 8, bytesPerLine: 0, color: true) }
        #expect(colour.format == .bgr8 && colour.bytes.count == 16 * 8 * 3)
        // Truncated and corrupt buffers are errors, not crashes.
        #expect(throws: MarkerKitError.self) { try [UInt8](repeating: 0, count: 5).withUnsafeBytes { try PixelConversion.frame(from: $0, format: .yuyv, width: 4, height: 2, bytesPerLine: 8, color: false) } }
        #expect(throws: MarkerKitError.self) { try [UInt8](repeating: 7, count: 50).withUnsafeBytes { try PixelConversion.frame(from: $0, format: .mjpeg, width: 4, height: 2, bytesPerLine: 0, color: true) } }
    }

    @Test func formatChoiceRefusesWhatTheCameraDoesNotOffer() throws {
        let offered = [
            V4L2Device.FormatInfo(fourcc: "MJPG", description: "Motion-JPEG", sizes: [.init(width: 1280, height: 720, rates: [30]), .init(width: 640, height: 480, rates: [30])]),
            V4L2Device.FormatInfo(fourcc: "YUYV", description: "YUYV 4:2:2", sizes: [.init(width: 640, height: 480, rates: [30])]),
        ]
        #expect(try V4L2Camera.choose(format: nil, size: (640, 480), offered: offered, path: "cam") == .yuyv)
        #expect(try V4L2Camera.choose(format: nil, size: (1280, 720), offered: offered, path: "cam") == .mjpeg)
        #expect(throws: MarkerKitError.badInput("camera 'cam' does not offer GREY (it offers MJPG, YUYV)")) {
            try V4L2Camera.choose(format: .grey, size: nil, offered: offered, path: "cam")
        }
        #expect(throws: MarkerKitError.badInput("camera 'cam' has no 1280x720 in YUYV (sizes: 640x480)")) {
            try V4L2Camera.choose(format: .yuyv, size: (1280, 720), offered: offered, path: "cam")
        }
        #expect(throws: MarkerKitError.self) { try V4L2Camera.choose(format: nil, size: (1920, 1080), offered: offered, path: "cam") }
    }

    @Test func deviceErrorsSayWhatToDo() {
        #expect(V4L2Device.openError(path: "/dev/video0", errno: EBUSY).description == "camera '/dev/video0' is busy: another program is using it")
        #expect(V4L2Device.openError(path: "/dev/video0", errno: EACCES).description.contains("'video' group"))
        #expect(V4L2Device.openError(path: "/dev/video9", errno: ENOENT) == .advised(.missingInput("no camera at '/dev/video9'"), .listCameras))
        let empty = try! TemporaryDirectory()
        #expect(V4L2Device.listing(in: empty.url.path).hasPrefix("no video devices"))
        #expect(V4L2Device.fourccString(V4L2Device.fourcc("YUYV")) == "YUYV")
    }

    @Test func turnedAndMirroredCoordinatesMapBackToTheSensor() throws {
        let frame = Frame(width: 4, height: 3, stride: 4, format: .gray8, bytes: Array(0..<12))
        for degrees in [0, 90, 180, 270] {
            for mirror in [false, true] {
                let t = try FrameTransform(rotate: degrees, mirror: mirror)
                let shown = t.apply(frame)
                for y in 0..<shown.height {
                    for x in 0..<shown.width {
                        let sensor = t.toSensor(Point2(x: Double(x), y: Double(y)), width: 4, height: 3)
                        #expect(shown.bytes[y * shown.width + x] == frame.bytes[Int(sensor.y) * 4 + Int(sensor.x)], "\(degrees) \(mirror)")
                    }
                }
            }
        }
        #expect(throws: MarkerKitError.self) { try FrameTransform(rotate: 45, mirror: false) }
    }

    @Test func thePreviewStaysOffWithoutADisplay() throws {
        let env = ProcessInfo.processInfo.environment
        let window = PreviewWindow(title: "test")
        if (env["DISPLAY"] ?? "").isEmpty && (env["WAYLAND_DISPLAY"] ?? "").isEmpty {
            #expect(!window.isAvailable)
            #expect(window.show(Frame(width: 2, height: 2, stride: 2, format: .gray8, bytes: [0, 1, 2, 3])) == nil)
        }
        // The bridge refuses without a display instead of opening anything.
        var pixels = [UInt8](repeating: 0, count: 12)
        unsetenv("DISPLAY"); unsetenv("WAYLAND_DISPLAY")
        #expect(cvb_preview_show("t", &pixels, 2, 2, 6, 1) == BRIDGE_ERR_IO.rawValue)
        #expect(String(cString: bridge_last_error()).contains("no display"))
    }

    /// imgcodecs, videoio and highgui are loaded on first use, their functions looked up by mangled name:
    /// each must be found in the installed OpenCV (a wrong name would otherwise show only when used).
    @Test func everyOpenCVFunctionLoadedOnFirstUseIsFound() {
        for library in [CVB_LIBRARY_IMGCODECS, CVB_LIBRARY_VIDEOIO, CVB_LIBRARY_HIGHGUI] {
            let status = cvb_opencv_library_check(library)
            #expect(status == 0, "\(String(cString: bridge_last_error()))")
        }
    }

    /// A source faster than its consumer: the consumer gets the newest frames, the rest count as dropped.
    @Test func liveFramesNeverLag() throws {
        final class Fast: FrameSource {
            var i = 0
            var name: String { "fast" }
            func next(into sourced: inout SourcedFrame) throws -> Bool {
                guard i < 200 else { return false }
                defer { i += 1 }
                usleep(200)
                sourced.frame.reshape(width: 64, height: 48, format: .gray8)
                sourced.frame.bytes[0] = UInt8(i % 256)
                sourced.index = i
                return true
            }
        }
        let live = LiveFrames(source: Fast())
        var seen: [Int] = []
        var frame = SourcedFrame.empty
        var memory = Set<UnsafeRawPointer>()
        while try live.next(into: &frame) {
            seen.append(frame.index)
            #expect(frame.frame.bytes[0] == UInt8(frame.index % 256), "the frame's own pixels")
            frame.frame.bytes.withUnsafeBytes { _ = memory.insert($0.baseAddress!) }
            usleep(2000) // slower than the source
        }
        #expect(seen == seen.sorted() && Set(seen).count == seen.count)
        #expect(seen.count + live.dropped == 200)
        #expect(live.dropped > 100, "most frames were skipped rather than queued")
        #expect(memory.count <= 3, "the frames swap three buffers, never copied: \(memory.count) seen")
    }

    /// A source read into one kept frame reuses its memory while the size stays.
    @Test func sourcesReadIntoTheSameMemory() throws {
        var images = ImageFileSource(files: [Fixtures.url("aruco-original-photos/single/image-test.png"),
                                             Fixtures.url("aruco-original-photos/single/image-test.png")])
        var frame = SourcedFrame.empty
        #expect(try images.next(into: &frame))
        let first = frame.frame.bytes.withUnsafeBytes { $0.baseAddress }
        #expect(try images.next(into: &frame))
        #expect(frame.frame.bytes.withUnsafeBytes { $0.baseAddress } == first)
        let fresh = try Frame(contentsOf: Fixtures.url("aruco-original-photos/single/image-test.png"))
        #expect(frame.frame.width == fresh.width && frame.frame.stride == fresh.stride && frame.frame.bytes == fresh.bytes)
        #expect(try !images.next(into: &frame))

        let video = try VideoFileSource(url: Fixtures.url("aruco-original-photos/single/video.avi"))
        #expect(try video.next(into: &frame))
        let start = frame.frame.bytes.withUnsafeBytes { $0.baseAddress }
        for _ in 0..<5 { #expect(try video.next(into: &frame)) }
        #expect(frame.frame.bytes.withUnsafeBytes { $0.baseAddress } == start && frame.index == 5)
    }
}

import CV4L2
import Foundation
import Synchronization

/// A webcam streaming through libv4l2 with memory-mapped buffers: the frame source for live capture.
/// A frame that cannot be converted (an MJPEG frame cut short or damaged on its way over USB, a buffer
/// shorter than its size) is skipped and counted in `badFrames`; only `badFramesInARow` of them in a
/// row end the stream, with the last one's reason.
public final class V4L2Camera: FrameSource {
    /// Bad frames in a row that end the stream: a second at 30 fps, where a camera sends nothing usable.
    public static let badFramesInARow = 30
    public let path: String
    public let format: PixelConversion.CameraFormat
    public let width: Int
    public let height: Int
    /// Deliver BGR frames (else gray, straight from the luma of YUYV).
    public var color: Bool
    private let fd: Int32
    private let buffers: [(start: UnsafeMutableRawPointer, length: Int)]
    private let bytesPerLine: Int
    private var index = 0
    private let started = ContinuousClock.now
    /// The camera's controls (focus, exposure, ...), for reading and setting while it streams.
    public let controls: V4L2Controls
    /// Every writable control as it was before MarkerKit changed any: put back by `restoreSettings()`.
    public let snapshot: CameraLock.Snapshot
    /// What the lock did ("focus 35 (autofocus off)", "fixed focus"); empty when not locked.
    public private(set) var locked: [String] = []
    private var restored = false

    /// How the camera is set up before its frames are used: controls set in order (`name=value`, as
    /// v4l2-ctl), then, when `lock` is given, after `settle` seconds of streaming for the automatic
    /// modes to settle, held there (`CameraLock`).
    public struct Setup: Sendable {
        public var controls: [String] = []
        public var lock: CameraLock.Request?
        public var settle = 1.0
        public init() {}
    }

    /// MJPEG's decoder, its memory kept from frame to frame.
    private let decoder: JPEGDecoder?
    private let skipped = Atomic<Int>(0)
    private var badInARow = 0

    /// Frames skipped as bad so far (read from any thread).
    public var badFrames: Int { skipped.load(ordering: .relaxed) }

    /// Opens and starts streaming. `size` and `fps` nil take the driver's choice; `format` nil picks
    /// YUYV, then MJPEG, then GREY among what the camera offers. On any failure the controls already
    /// changed are put back.
    public init(path: String, size: (Int, Int)?, fps: Double?, format requested: PixelConversion.CameraFormat?, color: Bool,
                setup: Setup = Setup()) throws {
        self.path = path
        self.color = color
        let fd = try V4L2Device.open(path)
        let controls = V4L2Controls(fd: fd, path: path)
        let snapshot = CameraLock.Snapshot(controls)
        var buffers: [(start: UnsafeMutableRawPointer, length: Int)] = []
        do {
            let set = try controls.apply(setup.controls)
            let stream = try Self.start(fd: fd, path: path, size: size, fps: fps, requested: requested, buffers: &buffers)
            (format, width, height, bytesPerLine) = stream
            decoder = stream.0 == .mjpeg ? try JPEGDecoder() : nil
            if let request = setup.lock {
                if CameraLock.needsSettling(controls) { try Self.drain(fd: fd, path: path, seconds: setup.settle) }
                locked = try CameraLock.lock(controls, request: request, leave: Set(set.map(\.name)))
            }
        } catch {
            snapshot.restore(on: controls)
            _ = cv4l2_stream_off(fd)
            for b in buffers { _ = cv4l2_munmap(b.start, b.length) }
            _ = cv4l2_close(fd)
            throw error
        }
        self.fd = fd
        self.buffers = buffers
        self.controls = controls
        self.snapshot = snapshot
        capabilities = (try? V4L2Device.capabilities(fd: fd, path: path))
            ?? V4L2Device.Capabilities(path: path, driver: "", card: "", busInfo: "", canCapture: true, canStream: true)
        var parameters = v4l2_streamparm()
        parameters.type = cv4l2_buf_type_capture()
        framesPerSecond = cv4l2_get_parameters(fd, &parameters) == 0 && parameters.parm.capture.timeperframe.numerator > 0
            ? Double(parameters.parm.capture.timeperframe.denominator) / Double(parameters.parm.capture.timeperframe.numerator) : nil
    }

    /// What the driver says the device is (card, driver, bus).
    public let capabilities: V4L2Device.Capabilities
    /// The frame rate the driver set, when it says.
    public let framesPerSecond: Double?

    /// The pixel format as V4L2 names it (YUYV, MJPG, GREY).
    public var fourcc: String {
        switch format {
        case .yuyv: return "YUYV"
        case .grey: return "GREY"
        case .mjpeg: return "MJPG"
        }
    }

    /// The `/dev/v4l/by-id/` link to this camera, which names it whichever /dev/videoN it got; nil when
    /// udev made none (or `path` is that link already: then it is `path`).
    public var stablePath: String? {
        if path.hasPrefix("/dev/v4l/by-id/") { return path }
        let directory = "/dev/v4l/by-id"
        guard let target = realpath(path, nil) else { return nil }
        defer { free(target) }
        let device = String(cString: target)
        let links = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return links.sorted().map { "\(directory)/\($0)" }.first { link in
            guard let resolved = realpath(link, nil) else { return false }
            defer { free(resolved) }
            return String(cString: resolved) == device
        }
    }

    /// Puts every control back as it was when the camera was opened (once; later calls do nothing).
    /// Called when the feed stops and when the camera is released.
    public func restoreSettings() {
        guard !restored else { return }
        restored = true
        snapshot.restore(on: controls)
    }

    /// Reads and requeues frames for `seconds` without using them: the automatic modes settle meanwhile.
    private static func drain(fd: Int32, path: String, seconds: Double) throws {
        let until = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        while ContinuousClock.now < until {
            let ready = cv4l2_wait(fd, 2000)
            guard ready > 0 else { throw waitError(path, ready) }
            var buffer = v4l2_buffer()
            buffer.type = cv4l2_buf_type_capture()
            buffer.memory = cv4l2_memory_mmap()
            if cv4l2_dequeue_buffer(fd, &buffer) == 0 {
                _ = cv4l2_queue_buffer(fd, &buffer)
            } else if errno != EAGAIN {
                throw ioctlError("read a frame from", path, errno)
            }
        }
    }

    private static func start(fd: Int32, path: String, size: (Int, Int)?, fps: Double?, requested: PixelConversion.CameraFormat?,
                              buffers: inout [(start: UnsafeMutableRawPointer, length: Int)]) throws
        -> (PixelConversion.CameraFormat, Int, Int, Int) {
        let caps = try V4L2Device.capabilities(fd: fd, path: path)
        guard caps.canCapture, caps.canStream else {
            throw MarkerKitError.advised(.badInput("'\(path)' (\(caps.card)) cannot stream video capture"), .listCameras)
        }
        let chosen = try choose(format: requested, size: size, offered: V4L2Device.formats(fd: fd), path: path)
        var f = v4l2_format()
        f.type = cv4l2_buf_type_capture()
        switch chosen {
        case .yuyv: f.fmt.pix.pixelformat = cv4l2_pix_yuyv()
        case .grey: f.fmt.pix.pixelformat = cv4l2_pix_grey()
        case .mjpeg: f.fmt.pix.pixelformat = cv4l2_pix_mjpeg()
        }
        f.fmt.pix.field = cv4l2_field_any()
        if let (w, h) = size {
            f.fmt.pix.width = UInt32(w); f.fmt.pix.height = UInt32(h)
        } else {
            // No size asked: keep the one the device is set to. Sending 0x0 would let the driver pick
            // the nearest size to nothing, which uvcvideo does: a C920 then streams 160x90.
            var current = v4l2_format()
            current.type = cv4l2_buf_type_capture()
            if cv4l2_get_format(fd, &current) == 0 {
                f.fmt.pix.width = current.fmt.pix.width
                f.fmt.pix.height = current.fmt.pix.height
            }
        }
        guard cv4l2_set_format(fd, &f) == 0 else { throw ioctlError("set the format of", path, errno) }
        if let (w, h) = size, (Int(f.fmt.pix.width), Int(f.fmt.pix.height)) != (w, h) {
            throw MarkerKitError.advised(.badInput("camera '\(path)' cannot deliver \(w)x\(h) in \(chosen.rawValue.uppercased()); it offered \(f.fmt.pix.width)x\(f.fmt.pix.height)"), .listCameras)
        }
        if let fps {
            var parameters = v4l2_streamparm()
            parameters.type = cv4l2_buf_type_capture()
            parameters.parm.capture.timeperframe.numerator = 1000
            parameters.parm.capture.timeperframe.denominator = UInt32((fps * 1000).rounded())
            _ = cv4l2_set_parameters(fd, &parameters) // best effort: drivers round to what they support
        }
        var request = v4l2_requestbuffers()
        request.count = 4
        request.type = cv4l2_buf_type_capture()
        request.memory = cv4l2_memory_mmap()
        guard cv4l2_request_buffers(fd, &request) == 0, request.count >= 2 else { throw ioctlError("get buffers from", path, errno) }
        for i in 0..<request.count {
            var buffer = v4l2_buffer()
            buffer.type = cv4l2_buf_type_capture()
            buffer.memory = cv4l2_memory_mmap()
            buffer.index = i
            guard cv4l2_query_buffer(fd, &buffer) == 0 else { throw ioctlError("query a buffer of", path, errno) }
            let start = cv4l2_mmap(fd, Int(buffer.length), Int64(buffer.m.offset))
            guard let start, start != UnsafeMutableRawPointer(bitPattern: -1) else { throw ioctlError("map a buffer of", path, errno) }
            buffers.append((start, Int(buffer.length)))
            guard cv4l2_queue_buffer(fd, &buffer) == 0 else { throw ioctlError("queue a buffer of", path, errno) }
        }
        guard cv4l2_stream_on(fd) == 0 else { throw ioctlError("start streaming from", path, errno) }
        return (chosen, Int(f.fmt.pix.width), Int(f.fmt.pix.height), Int(f.fmt.pix.bytesperline))
    }

    deinit {
        restoreSettings()
        _ = cv4l2_stream_off(fd)
        for b in buffers { _ = cv4l2_munmap(b.start, b.length) }
        _ = cv4l2_close(fd)
    }

    public var name: String { path }

    /// The format to ask for: the requested one if offered (and the size with it), else the first of
    /// YUYV, MJPEG, GREY that is. Pure, so it is tested without a camera.
    static func choose(format requested: PixelConversion.CameraFormat?, size: (Int, Int)?, offered: [V4L2Device.FormatInfo],
                       path: String) throws -> PixelConversion.CameraFormat {
        func code(_ f: PixelConversion.CameraFormat) -> String {
            switch f {
            case .yuyv: return "YUYV"
            case .grey: return "GREY"
            case .mjpeg: return "MJPG"
            }
        }
        func holds(_ f: V4L2Device.FormatInfo) -> Bool {
            guard let (w, h) = size else { return true }
            // Drivers with stepwise sizes list their maximum only: accept anything up to it.
            return f.sizes.contains { ($0.width == w && $0.height == h) || ($0.rates.isEmpty && $0.width >= w && $0.height >= h) }
        }
        let names = offered.map(\.fourcc).joined(separator: ", ")
        if let requested {
            guard let info = offered.first(where: { $0.fourcc == code(requested) }) else {
                throw MarkerKitError.badInput("camera '\(path)' does not offer \(code(requested)) (it offers \(names.isEmpty ? "nothing" : names))")
            }
            guard holds(info) else {
                let sizes = info.sizes.map { "\($0.width)x\($0.height)" }.joined(separator: ", ")
                throw MarkerKitError.badInput("camera '\(path)' has no \(size!.0)x\(size!.1) in \(code(requested)) (sizes: \(sizes))")
            }
            return requested
        }
        for candidate in [PixelConversion.CameraFormat.yuyv, .mjpeg, .grey] {
            if let info = offered.first(where: { $0.fourcc == code(candidate) }), holds(info) { return candidate }
        }
        if let (w, h) = size { throw MarkerKitError.advised(.badInput("camera '\(path)' offers no \(w)x\(h) in YUYV, MJPEG or GREY"), .listCameras) }
        throw MarkerKitError.badInput("camera '\(path)' offers none of YUYV, MJPEG, GREY (it offers \(names.isEmpty ? "nothing" : names))")
    }

    public func next(into sourced: inout SourcedFrame) throws -> Bool {
        while true {
            var buffer = try dequeue()
            defer { _ = cv4l2_queue_buffer(fd, &buffer) }
            defer { index += 1 }
            let b = buffers[Int(buffer.index)]
            do {
                try PixelConversion.convert(UnsafeRawBufferPointer(start: b.start, count: Int(buffer.bytesused)), format: format, width: width,
                                            height: height, bytesPerLine: bytesPerLine, color: color, decoder: decoder, into: &sourced.frame)
            } catch let error as MarkerKitError {
                guard case .badInput = error else { throw error }
                skipped.add(1, ordering: .relaxed)
                badInARow += 1
                if badInARow >= Self.badFramesInARow {
                    throw MarkerKitError.badInput("camera '\(path)' sent \(badInARow) bad frames in a row; the last: \(error.description)")
                }
                continue
            }
            badInARow = 0
            let elapsed = ContinuousClock.now - started
            sourced.source = path
            sourced.index = index
            sourced.time = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
            // A monotonic driver timestamp, as uvcvideo gives; other clocks cannot be compared between cameras.
            let monotonic = buffer.flags & UInt32(V4L2_BUF_FLAG_TIMESTAMP_MASK) == UInt32(V4L2_BUF_FLAG_TIMESTAMP_MONOTONIC)
            sourced.stamp = monotonic && (buffer.timestamp.tv_sec != 0 || buffer.timestamp.tv_usec != 0)
                ? Double(buffer.timestamp.tv_sec) + Double(buffer.timestamp.tv_usec) * 1e-6 : nil
            return true
        }
    }

    /// The next filled buffer, waiting up to 2 s for it.
    private func dequeue() throws -> v4l2_buffer {
        while true {
            let ready = cv4l2_wait(fd, 2000)
            guard ready > 0 else { throw Self.waitError(path, ready, after: index) }
            var buffer = v4l2_buffer()
            buffer.type = cv4l2_buf_type_capture()
            buffer.memory = cv4l2_memory_mmap()
            if cv4l2_dequeue_buffer(fd, &buffer) == 0 { return buffer }
            guard errno == EAGAIN else { throw Self.ioctlError("read a frame from", path, errno, after: index) }
        }
    }

    static func ioctlError(_ what: String, _ path: String, _ code: Int32, after frames: Int? = nil) -> MarkerKitError {
        switch code {
        case EBUSY: return .badInput("camera '\(path)' is busy: another program is using it")
        // A UVC camera pulled out: its node answers ENODEV (EIO and ENXIO on some drivers) until closed.
        case ENODEV, EIO, ENXIO: return lost(path, after: frames)
        default: return .badInput("cannot \(what) camera '\(path)': \(String(cString: strerror(code)))")
        }
    }

    /// A wait that ended without a frame: a timeout (2 s), or the camera gone.
    static func waitError(_ path: String, _ ready: Int32, after frames: Int? = nil) -> MarkerKitError {
        let code = errno
        if !FileManager.default.fileExists(atPath: path) { return lost(path, after: frames) }
        if ready < 0 { return ioctlError("wait for", path, code, after: frames) }
        return .badInput("camera '\(path)' sent no frame for 2 s")
    }

    static func lost(_ path: String, after frames: Int?) -> MarkerKitError {
        .cameraLost("camera '\(path)' disconnected" + (frames.map { " after " + counted($0, "frame") } ?? "") + " (unplugged?)")
    }
}

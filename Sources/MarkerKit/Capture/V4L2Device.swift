import CV4L2
import Foundation

/// A Video4Linux2 device node (`/dev/video0`) through libv4l2: what it is and what it can deliver.
public struct V4L2Device: Sendable {
    /// What VIDIOC_QUERYCAP says about a device.
    public struct Capabilities: Sendable, Equatable {
        public let path: String
        public let driver: String
        public let card: String
        public let busInfo: String
        public let canCapture: Bool
        public let canStream: Bool
    }

    /// One pixel format with its frame sizes and rates.
    public struct FormatInfo: Sendable, Equatable {
        public let fourcc: String
        public let description: String
        public let sizes: [SizeInfo]
    }

    public struct SizeInfo: Sendable, Equatable {
        public let width: Int
        public let height: Int
        /// Frame rates (frames per second); empty when the driver gives ranges only.
        public let rates: [Double]
    }

    /// Opens `path`, asks the driver what it is and closes it again.
    public static func capabilities(of path: String) throws -> Capabilities {
        let fd = try open(path)
        defer { _ = cv4l2_close(fd) }
        return try capabilities(fd: fd, path: path)
    }

    static func open(_ path: String) throws -> Int32 {
        let fd = cv4l2_open(path)
        guard fd >= 0 else { throw openError(path: path, errno: errno) }
        return fd
    }

    static func capabilities(fd: Int32, path: String) throws -> Capabilities {
        var capability = v4l2_capability()
        guard cv4l2_query_capability(fd, &capability) == 0 else {
            let code = errno
            if code == ENOTTY || code == EINVAL {
                throw MarkerKitError.advised(.badInput("'\(path)' is not a V4L2 video device"), .listCameras)
            }
            throw MarkerKitError.badInput("cannot query '\(path)': \(String(cString: strerror(code)))")
        }
        let caps = capability.capabilities & cv4l2_cap_device_caps() != 0 ? capability.device_caps : capability.capabilities
        return Capabilities(path: path, driver: string(capability.driver), card: string(capability.card),
                            busInfo: string(capability.bus_info), canCapture: caps & cv4l2_cap_video_capture() != 0,
                            canStream: caps & cv4l2_cap_streaming() != 0)
    }

    /// Every capture format the device offers, with its discrete frame sizes and rates.
    static func formats(fd: Int32) -> [FormatInfo] {
        var formats: [FormatInfo] = []
        var index: UInt32 = 0
        while true {
            var description = v4l2_fmtdesc()
            description.index = index
            description.type = cv4l2_buf_type_capture()
            guard cv4l2_enum_format(fd, &description) == 0 else { break }
            index += 1
            var sizes: [SizeInfo] = []
            var sizeIndex: UInt32 = 0
            while true {
                var size = v4l2_frmsizeenum()
                size.index = sizeIndex
                size.pixel_format = description.pixelformat
                guard cv4l2_enum_frame_size(fd, &size) == 0 else { break }
                sizeIndex += 1
                guard size.type == cv4l2_frmsize_discrete() else {
                    let s = size.stepwise
                    sizes.append(SizeInfo(width: Int(s.max_width), height: Int(s.max_height), rates: []))
                    break
                }
                let (w, h) = (size.discrete.width, size.discrete.height)
                var rates: [Double] = []
                var rateIndex: UInt32 = 0
                while true {
                    var interval = v4l2_frmivalenum()
                    interval.index = rateIndex
                    interval.pixel_format = description.pixelformat
                    interval.width = w
                    interval.height = h
                    guard cv4l2_enum_frame_interval(fd, &interval) == 0, interval.type == cv4l2_frmival_discrete() else { break }
                    rateIndex += 1
                    if interval.discrete.numerator > 0 { rates.append(Double(interval.discrete.denominator) / Double(interval.discrete.numerator)) }
                }
                sizes.append(SizeInfo(width: Int(w), height: Int(h), rates: rates))
            }
            formats.append(FormatInfo(fourcc: fourccString(description.pixelformat), description: string(description.description), sizes: sizes))
        }
        return formats
    }

    /// The device nodes present: `/dev/video*`, in numeric order.
    public static func deviceNodes(in directory: String = "/dev") -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return names.filter { $0.hasPrefix("video") && Int($0.dropFirst(5)) != nil }
            .sorted { Int($0.dropFirst(5))! < Int($1.dropFirst(5))! }
            .map { "\(directory)/\($0)" }
    }

    /// The camera whose card name contains `text` (case ignored: "C920" for "HD Pro Webcam C920"), so a
    /// camera is named the same whichever /dev/videoN it got; nil when none does. Two that match are
    /// refused with both named.
    public static func node(matching text: String, in directory: String = "/dev") throws -> String? {
        let cards = deviceNodes(in: directory).compactMap { node -> (node: String, card: String)? in
            guard let caps = try? capabilities(of: node), caps.canCapture else { return nil }
            return (node, caps.card)
        }
        return try choose(text, among: cards)
    }

    /// The node among `cards` whose card name contains `text`; pure, so it is tested without cameras.
    static func choose(_ text: String, among cards: [(node: String, card: String)]) throws -> String? {
        let wanted = text.trimmingCharacters(in: .whitespaces).lowercased()
        guard !wanted.isEmpty else { return nil }
        let matches = cards.filter { $0.card.lowercased().contains(wanted) }
        guard matches.count <= 1 else {
            throw MarkerKitError.invalidArgument("'\(text)' names \(matches.count) cameras: " + matches.map { "\($0.node) (\($0.card))" }.joined(separator: ", ") + "; give the /dev/video path or /dev/v4l/by-id/ name")
        }
        return matches.first?.node
    }

    /// The `capture --list` text: every device with card, driver, formats, sizes and rates, and its
    /// controls (names, ranges, defaults, current values and menus as v4l2-ctl lists them).
    public static func listing(in directory: String = "/dev") -> String {
        let nodes = deviceNodes(in: directory)
        guard !nodes.isEmpty else {
            return "no video devices (\(directory)/video* is absent): connect a camera, or read a video file or image folder instead"
        }
        return listing(of: nodes)
    }

    /// The `capture --list` text for these device nodes.
    public static func listing(of nodes: [String]) -> String {
        nodes.map { node in
            do {
                let fd = try open(node)
                defer { _ = cv4l2_close(fd) }
                let caps = try capabilities(fd: fd, path: node)
                guard caps.canCapture else { return "\(node): \(caps.card) (\(caps.driver)): no video capture (metadata or output node)" }
                var lines = ["\(node): \(caps.card) (\(caps.driver), \(caps.busInfo))"]
                for format in formats(fd: fd) {
                    let sizes = format.sizes.map { size in
                        "\(size.width)x\(size.height)" + (size.rates.isEmpty ? "" : " @" + size.rates.map { String(format: "%g", $0) }.joined(separator: "/"))
                    }
                    lines.append("  \(format.fourcc.padding(toLength: 5, withPad: " ", startingAt: 0)) \(format.description): \(sizes.joined(separator: ", "))")
                }
                lines += controlListing(V4L2Controls(fd: fd, path: node).all())
                return lines.joined(separator: "\n")
            } catch let error as MarkerKitError {
                return "\(node): \(error.description)"
            } catch {
                return "\(node): \(error)"
            }
        }.joined(separator: "\n")
    }

    /// The controls as v4l2-ctl --list-ctrls-menus shows them, under their class headings.
    static func controlListing(_ controls: [V4L2Control]) -> [String] {
        guard !controls.isEmpty else { return ["  no controls"] }
        var lines: [String] = []
        var section: String?
        for control in controls {
            if control.section != section {
                section = control.section
                lines.append("  \(control.section.isEmpty ? "Controls" : control.section)")
            }
            lines += control.listing.map { "  " + $0 }
        }
        return lines
    }

    static func openError(path: String, errno code: Int32) -> MarkerKitError {
        switch code {
        case ENOENT, ENXIO, ENODEV:
            return .advised(.missingInput("no camera at '\(path)'"), .listCameras)
        case ENOTTY, EINVAL:
            return .advised(.badInput("'\(path)' is not a V4L2 video device"), .listCameras)
        case EBUSY:
            return .badInput("camera '\(path)' is busy: another program is using it")
        case EACCES, EPERM:
            return .badInput("no permission to open camera '\(path)' (add yourself to the 'video' group)")
        default:
            return .badInput("cannot open camera '\(path)': \(String(cString: strerror(code)))")
        }
    }

    static func fourccString(_ code: UInt32) -> String {
        String(decoding: (0..<4).map { UInt8((code >> (8 * $0)) & 0xFF) }, as: UTF8.self).trimmingCharacters(in: .whitespaces)
    }

    static func fourcc(_ text: String) -> UInt32 {
        Array(text.utf8.prefix(4)).enumerated().reduce(UInt32(0)) { $0 | UInt32($1.element) << (8 * UInt32($1.offset)) }
    }

    /// A fixed-size C char array (imported as a tuple) as a String, up to its first NUL.
    static func string<T>(_ tuple: T) -> String {
        withUnsafeBytes(of: tuple) { bytes in
            String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
        }
    }
}

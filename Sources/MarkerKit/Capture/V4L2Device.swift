import CV4L2
import Foundation

/// A Video4Linux2 device node (`/dev/video0`) opened through libv4l2.
public struct V4L2Device: Sendable {
    /// What VIDIOC_QUERYCAP says about a device.
    public struct Capabilities: Sendable, Equatable {
        public let path: String
        public let driver: String
        public let card: String
        public let busInfo: String
        public let canCapture: Bool
    }

    /// Opens `path`, asks the driver what it is and closes it again. Every failure names the device and
    /// says what to do.
    public static func capabilities(of path: String) throws -> Capabilities {
        let fd = cv4l2_open(path)
        guard fd >= 0 else { throw openError(path: path, errno: errno) }
        defer { _ = cv4l2_close(fd) }
        var capability = v4l2_capability()
        guard cv4l2_query_capability(fd, &capability) == 0 else {
            let code = errno
            if code == ENOTTY || code == EINVAL {
                throw MarkerKitError.badInput("'\(path)' is not a V4L2 video device (see markerkit capture --list)")
            }
            throw MarkerKitError.badInput("cannot query '\(path)': \(String(cString: strerror(code)))")
        }
        let caps = capability.capabilities & cv4l2_cap_device_caps() != 0 ? capability.device_caps : capability.capabilities
        return Capabilities(path: path, driver: string(capability.driver), card: string(capability.card),
                            busInfo: string(capability.bus_info), canCapture: caps & cv4l2_cap_video_capture() != 0)
    }

    /// The device nodes present: `/dev/video*`, in numeric order.
    public static func deviceNodes(in directory: String = "/dev") -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return names.filter { $0.hasPrefix("video") && Int($0.dropFirst(5)) != nil }
            .sorted { Int($0.dropFirst(5))! < Int($1.dropFirst(5))! }
            .map { "\(directory)/\($0)" }
    }

    static func openError(path: String, errno code: Int32) -> MarkerKitError {
        switch code {
        case ENOENT, ENXIO, ENODEV:
            return .missingInput("no camera at '\(path)' (see markerkit capture --list)")
        case ENOTTY, EINVAL:
            return .badInput("'\(path)' is not a V4L2 video device (see markerkit capture --list)")
        case EBUSY:
            return .badInput("camera '\(path)' is busy: another program is using it")
        case EACCES, EPERM:
            return .badInput("no permission to open camera '\(path)' (add yourself to the 'video' group)")
        default:
            return .badInput("cannot open camera '\(path)': \(String(cString: strerror(code)))")
        }
    }

    /// A fixed-size C char array (imported as a tuple) as a String, up to its first NUL.
    static func string<T>(_ tuple: T) -> String {
        withUnsafeBytes(of: tuple) { bytes in
            String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
        }
    }
}

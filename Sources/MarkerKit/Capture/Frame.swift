import CVBridge
import Foundation

/// One picture from any frame source: size, row stride, pixel layout and the bytes.
public struct Frame: Sendable {
    public enum PixelFormat: Sendable {
        case gray8, bgr8, bgra8

        public var channels: Int {
            switch self {
            case .gray8: return 1
            case .bgr8: return 3
            case .bgra8: return 4
            }
        }
    }

    public let width: Int
    public let height: Int
    /// Bytes per row (at least width x channels).
    public let stride: Int
    public let format: PixelFormat
    public var bytes: [UInt8]

    public init(width: Int, height: Int, stride: Int, format: PixelFormat, bytes: [UInt8]) {
        precondition(stride >= width * format.channels && bytes.count >= stride * height, "frame buffer too small")
        self.width = width
        self.height = height
        self.stride = stride
        self.format = format
        self.bytes = bytes
    }

    /// Reads an image file as gray or BGR through OpenCV's imgcodecs.
    public init(contentsOf url: URL, format: PixelFormat = .bgr8) throws {
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw MarkerKitError.missingInput("cannot read image '\(url.path)': no such file")
        }
        precondition(format != .bgra8, "images are read as gray or BGR")
        var image = cvb_image()
        let status = cvb_image_read(url.path, Int32(format.channels), &image)
        defer { cvb_image_release(&image) }
        guard status >= 0 else {
            let reason = Int(status) == CVB_ERR_TOO_LARGE ? String(cString: cvb_last_error()) : "not a readable image or corrupt"
            throw MarkerKitError.badInput("cannot read image '\(url.path)': \(reason)")
        }
        self.init(bridged: image, format: format)
    }

    /// Copies an image the bridge allocated.
    init(bridged image: cvb_image, format: PixelFormat) {
        let count = Int(image.stride) * Int(image.height)
        self.init(width: Int(image.width), height: Int(image.height), stride: Int(image.stride), format: format,
                  bytes: Array(UnsafeBufferPointer(start: image.data, count: count)))
    }

    /// Encodes the frame as PNG or JPEG (by `fileExtension`) with OpenCV's imgcodecs.
    public func encoded(as fileExtension: String) throws -> Data {
        precondition(format != .bgra8, "encode gray or BGR frames")
        var out = cvb_image()
        let status = bytes.withUnsafeBufferPointer {
            cvb_image_encode($0.baseAddress, Int32(width), Int32(height), Int32(stride), Int32(format.channels),
                             "." + fileExtension, &out)
        }
        defer { cvb_image_release(&out) }
        guard status >= 0, let data = out.data else {
            throw MarkerKitError.cannotWrite("cannot encode an image as .\(fileExtension): \(String(cString: cvb_last_error()))")
        }
        return Data(bytes: data, count: Int(out.width))
    }
}

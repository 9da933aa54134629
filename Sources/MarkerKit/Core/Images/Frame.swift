import BridgeStatus
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

    public private(set) var width: Int
    public private(set) var height: Int
    /// Bytes per row (at least width x channels).
    public private(set) var stride: Int
    public private(set) var format: PixelFormat
    public var bytes: [UInt8]

    /// No picture yet: a frame for a source to read into.
    public static let empty = Frame(width: 0, height: 0, stride: 0, format: .gray8, bytes: [])

    public init(width: Int, height: Int, stride: Int, format: PixelFormat, bytes: [UInt8]) {
        precondition(stride >= width * format.channels && bytes.count >= stride * height, "frame buffer too small")
        self.width = width
        self.height = height
        self.stride = stride
        self.format = format
        self.bytes = bytes
    }

    /// Reads an image file as gray or BGR through OpenCV's imgcodecs, as a viewer shows it (turned as
    /// its orientation tag says; 16-bit and float made 8-bit, see cvb_image_read).
    public init(contentsOf url: URL, format: PixelFormat = .bgr8) throws {
        self = .empty
        try read(path: url.path.utf8CString, format: format)
    }

    /// Gives the frame this size and layout (rows packed), keeping its memory when the byte count is
    /// the same: a frame read into again and again allocates once. The pixels are left as they were.
    public mutating func reshape(width: Int, height: Int, format: PixelFormat) {
        self.width = width
        self.height = height
        self.format = format
        stride = width * format.channels
        if bytes.count != stride * height { bytes = [UInt8](repeating: 0, count: stride * height) }
    }

    /// The image file at `path` (a C string, made once by a source that reads many) into this frame,
    /// its memory reused when the size repeats; the file's orientation tag, nil when it has none.
    @discardableResult
    mutating func read(path: ContiguousArray<CChar>, format: PixelFormat) throws -> ImageOrientation? {
        precondition(format != .bgra8, "images are read as gray or BGR")
        var image = cvb_image()
        var tag: Int32 = 0
        let status = path.withUnsafeBufferPointer { cvb_image_read($0.baseAddress, Int32(format.channels), &image, &tag) }
        guard status >= 0 else {
            let path = path.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
            switch PathKind.of(path) {
            case .missing: throw MarkerKitError.missingInput("cannot read image '\(path)': no such file")
            case .special(let what): throw PathKind.notARegularFile(path, what)
            case .file, .folder: break
            }
            let said = status == BRIDGE_ERR_TOO_LARGE.rawValue || status == BRIDGE_ERR_UNAVAILABLE.rawValue
            let reason = said ? Bridge.lastError : "not a readable image or corrupt"
            throw MarkerKitError.badInput("cannot read image '\(path)': \(reason)")
        }
        copy(bridged: image, format: format)
        cvb_decoded_release()
        return ImageOrientation(tag: tag)
    }

    /// Copies a picture the bridge holds (a view of its memory) into this frame.
    mutating func copy(bridged image: cvb_image, format: PixelFormat) {
        reshape(width: Int(image.width), height: Int(image.height), format: format)
        let row = stride, source = Int(image.stride)
        bytes.withUnsafeMutableBytes { target in
            for y in 0..<height {
                (target.baseAddress! + y * row).copyMemory(from: image.data + y * source, byteCount: row)
            }
        }
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
        try Bridge.check(status) { .cannotWrite("cannot encode an image as .\(fileExtension): \($0)") }
        return out.data.map { Data(bytes: $0, count: Int(out.width)) } ?? Data()
    }
}

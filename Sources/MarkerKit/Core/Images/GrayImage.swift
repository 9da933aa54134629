import CVBridge
import Foundation

/// An 8-bit single-channel image, row-major, rows packed (stride = width): what detection works on.
public struct GrayImage: Sendable {
    public let width: Int
    public let height: Int
    public var pixels: [UInt8]

    public init(width: Int, height: Int, pixels: [UInt8]) {
        precondition(pixels.count == width * height, "pixel count must be width x height")
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    public subscript(x: Int, y: Int) -> UInt8 { pixels[y * width + x] }

    /// A width x height image in `image`'s place: the same one, pixels untouched, when it already has
    /// that size, so that a buffer reused frame after frame is allocated once.
    static func reuse(_ image: inout GrayImage, width: Int, height: Int) {
        if image.width != width || image.height != height {
            image = GrayImage(width: width, height: height, pixels: [UInt8](repeating: 0, count: width * height))
        }
    }

    static let empty = GrayImage(width: 0, height: 0, pixels: [])

    /// `image` resized to width x height into `out` (OpenCV's resize): area averaging for a whole
    /// factor unless `bilinear`, else bilinear.
    static func resize(_ image: GrayImage, width: Int, height: Int, bilinear: Bool, into out: inout GrayImage) throws {
        reuse(&out, width: width, height: height)
        let status = image.pixels.withUnsafeBufferPointer { source in
            out.pixels.withUnsafeMutableBufferPointer {
                cvb_resize_gray(source.baseAddress, Int32(image.width), Int32(image.height), Int32(image.width),
                                Int32(width), Int32(height), bilinear ? CVB_RESIZE_BILINEAR : CVB_RESIZE_AREA_WHEN_WHOLE, $0.baseAddress)
            }
        }
        try Bridge.check(status)
    }

    /// The image scaled to `width` pixels wide, its aspect kept (area averaging): a thumbnail.
    public func scaled(toWidth width: Int) throws -> GrayImage {
        let height = max(1, Int((Double(self.height) * Double(width) / Double(max(self.width, 1))).rounded()))
        var out = GrayImage.empty
        try Self.resize(self, width: width, height: height, bilinear: false, into: &out)
        return out
    }

    /// Reads any image file OpenCV's imgcodecs decodes (PNG, JPEG, TIFF, BMP, PGM, ...) as gray.
    public init(contentsOf url: URL) throws {
        let frame = try Frame(contentsOf: url, format: .gray8)
        self.init(width: frame.width, height: frame.height, pixels: frame.bytes)
    }

    /// Bilinear sample at (x, y) in OpenCV's convention (integer coordinates at pixel centres), clamped
    /// to the image.
    public func sample(_ x: Double, _ y: Double) -> Double {
        let cx = min(max(x, 0), Double(width - 1)), cy = min(max(y, 0), Double(height - 1))
        let x0 = Int(cx), y0 = Int(cy)
        let x1 = min(x0 + 1, width - 1), y1 = min(y0 + 1, height - 1)
        let fx = cx - Double(x0), fy = cy - Double(y0)
        let top = Double(pixels[y0 * width + x0]) * (1 - fx) + Double(pixels[y0 * width + x1]) * fx
        let bottom = Double(pixels[y1 * width + x0]) * (1 - fx) + Double(pixels[y1 * width + x1]) * fx
        return top * (1 - fy) + bottom * fy
    }
}

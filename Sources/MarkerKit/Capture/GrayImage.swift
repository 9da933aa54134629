import CVBridge
import Foundation

/// An 8-bit single-channel image, row-major, rows packed (stride = width).
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

    /// Reads any image file OpenCV's imgcodecs decodes (PNG, JPEG, TIFF, BMP, PGM, ...) as gray.
    public init(contentsOf url: URL) throws {
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw MarkerKitError.missingInput("cannot read image '\(url.path)': no such file")
        }
        var image = cvb_image()
        let status = cvb_image_read_gray(url.path, &image)
        defer { cvb_image_release(&image) }
        guard status >= 0, let data = image.data else {
            throw MarkerKitError.badInput("cannot read image '\(url.path)': not a readable image or corrupt")
        }
        let count = Int(image.width) * Int(image.height)
        self.init(width: Int(image.width), height: Int(image.height),
                  pixels: Array(UnsafeBufferPointer(start: data, count: count)))
    }
}

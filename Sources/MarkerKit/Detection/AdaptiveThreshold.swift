import CVBridge

/// Stage 2: dark regions against their neighbourhood, one binary image per window (dark = 255), by
/// OpenCV's mean adaptive threshold.
public enum AdaptiveThreshold {
    public static func binary(_ image: GrayImage, window: Int, constant: Double) throws -> GrayImage {
        var binary = [UInt8](repeating: 0, count: image.width * image.height)
        let status = image.pixels.withUnsafeBufferPointer { gray in
            binary.withUnsafeMutableBufferPointer { out in
                cvb_adaptive_threshold(gray.baseAddress, Int32(image.width), Int32(image.height), Int32(image.width),
                                       Int32(window), constant, out.baseAddress)
            }
        }
        guard status >= 0 else { throw MarkerKitError.internalFailure(String(cString: cvb_last_error())) }
        return GrayImage(width: image.width, height: image.height, pixels: binary)
    }
}

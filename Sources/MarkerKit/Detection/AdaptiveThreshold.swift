import CVBridge

/// Stage 2: dark regions against their neighbourhood, one binary image per window (dark = 255), by
/// OpenCV's mean adaptive threshold.
public enum AdaptiveThreshold {
    public static func binary(_ image: GrayImage, window: Int, constant: Double) throws -> GrayImage {
        var result = GrayImage.empty
        try binary(image, window: window, constant: constant, into: &result)
        return result
    }

    /// The same into `binary`, reusing its pixels when it already has the image's size.
    public static func binary(_ image: GrayImage, window: Int, constant: Double, into binary: inout GrayImage) throws {
        GrayImage.reuse(&binary, width: image.width, height: image.height)
        let status = image.pixels.withUnsafeBufferPointer { gray in
            binary.pixels.withUnsafeMutableBufferPointer { out in
                cvb_adaptive_threshold(gray.baseAddress, Int32(image.width), Int32(image.height), Int32(image.width),
                                       Int32(window), constant, out.baseAddress)
            }
        }
        guard status >= 0 else { throw MarkerKitError.internalFailure(String(cString: cvb_last_error())) }
    }
}

import CVBridge

/// Stage 1: any frame to a packed gray image. Gray frames are only repacked; colour goes through
/// OpenCV's cvtColor (BT.601 weights).
public enum Grayscale {
    public static func image(from frame: Frame) throws -> GrayImage {
        if frame.format == .gray8 {
            if frame.stride == frame.width { return GrayImage(width: frame.width, height: frame.height, pixels: Array(frame.bytes.prefix(frame.width * frame.height))) }
            var pixels = [UInt8](repeating: 0, count: frame.width * frame.height)
            for y in 0..<frame.height {
                for x in 0..<frame.width { pixels[y * frame.width + x] = frame.bytes[y * frame.stride + x] }
            }
            return GrayImage(width: frame.width, height: frame.height, pixels: pixels)
        }
        var pixels = [UInt8](repeating: 0, count: frame.width * frame.height)
        let status = frame.bytes.withUnsafeBufferPointer { source in
            pixels.withUnsafeMutableBufferPointer { gray in
                cvb_to_gray(source.baseAddress, Int32(frame.width), Int32(frame.height), Int32(frame.stride),
                            Int32(frame.format.channels), gray.baseAddress)
            }
        }
        guard status >= 0 else { throw MarkerKitError.internalFailure(String(cString: cvb_last_error())) }
        return GrayImage(width: frame.width, height: frame.height, pixels: pixels)
    }
}

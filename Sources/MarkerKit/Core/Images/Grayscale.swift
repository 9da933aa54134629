import CVBridge

/// Stage 1: any frame to a packed gray image. Gray frames are only repacked; colour goes through
/// OpenCV's cvtColor (BT.601 weights).
public enum Grayscale {
    public static func image(from frame: Frame) throws -> GrayImage {
        var gray = GrayImage.empty
        try convert(frame, into: &gray)
        return gray
    }

    /// The same into `gray`, reusing its pixels when it already has the frame's size.
    public static func convert(_ frame: Frame, into gray: inout GrayImage) throws {
        GrayImage.reuse(&gray, width: frame.width, height: frame.height)
        let (width, height) = (frame.width, frame.height)
        if frame.format == .gray8 {
            gray.pixels.withUnsafeMutableBufferPointer { out in
                frame.bytes.withUnsafeBufferPointer { source in
                    for y in 0..<height {
                        let row = UnsafeMutableBufferPointer(rebasing: out[(y * width)..<((y + 1) * width)])
                        _ = row.initialize(from: source[(y * frame.stride)..<(y * frame.stride + width)])
                    }
                }
            }
            return
        }
        let status = frame.bytes.withUnsafeBufferPointer { source in
            gray.pixels.withUnsafeMutableBufferPointer { out in
                cvb_to_gray(source.baseAddress, Int32(width), Int32(height), Int32(frame.stride),
                            Int32(frame.format.channels), out.baseAddress)
            }
        }
        try Bridge.check(status)
    }
}

import CVBridge

/// Camera buffers to frames: YUYV (gray straight from the Y samples, no colour conversion; BGR through
/// OpenCV), GREY, and MJPEG (libjpeg-turbo through `JPEGDecoder`, gray from the luma alone).
public enum PixelConversion {
    public enum CameraFormat: String, Sendable, CaseIterable {
        case yuyv, grey, mjpeg
    }

    /// Converts one buffer; `color` asks for BGR, else gray.
    public static func frame(from bytes: UnsafeRawBufferPointer, format: CameraFormat, width: Int, height: Int,
                             bytesPerLine: Int, color: Bool) throws -> Frame {
        var frame = Frame.empty
        try convert(bytes, format: format, width: width, height: height, bytesPerLine: bytesPerLine, color: color, into: &frame)
        return frame
    }

    /// The same into `frame`, whose memory is reused while the size stays: a camera's stream converted
    /// into kept frames allocates nothing, MJPEG too when the stream keeps its `decoder` (without one, a
    /// decoder is made for this frame).
    public static func convert(_ bytes: UnsafeRawBufferPointer, format: CameraFormat, width: Int, height: Int,
                               bytesPerLine: Int, color: Bool, decoder: JPEGDecoder? = nil, into frame: inout Frame) throws {
        let input = bytes.bindMemory(to: UInt8.self)
        switch format {
        case .grey:
            guard bytesPerLine >= width, bytes.count >= bytesPerLine * (height - 1) + width else { throw truncated(format) }
            frame.reshape(width: width, height: height, format: color ? .bgr8 : .gray8)
            let channels = color ? 3 : 1
            frame.bytes.withUnsafeMutableBufferPointer { out in
                for y in 0..<height {
                    for x in 0..<width {
                        let value = input[y * bytesPerLine + x]
                        for k in 0..<channels { out[(y * width + x) * channels + k] = value }
                    }
                }
            }
        case .yuyv:
            guard width % 2 == 0, bytesPerLine >= 2 * width, bytes.count >= bytesPerLine * (height - 1) + 2 * width else { throw truncated(format) }
            frame.reshape(width: width, height: height, format: color ? .bgr8 : .gray8)
            if !color {
                frame.bytes.withUnsafeMutableBufferPointer { out in
                    for y in 0..<height {
                        for x in 0..<width { out[y * width + x] = input[y * bytesPerLine + 2 * x] }
                    }
                }
                return
            }
            let status = frame.bytes.withUnsafeMutableBufferPointer {
                cvb_yuyv_to_bgr(input.baseAddress, Int32(width), Int32(height), Int32(bytesPerLine), $0.baseAddress)
            }
            try Bridge.check(status) { .badInput("YUYV frame: \($0)") }
        case .mjpeg:
            try (decoder ?? JPEGDecoder()).decode(bytes, width: width, height: height, color: color, into: &frame)
        }
    }

    static func truncated(_ format: CameraFormat) -> MarkerKitError {
        .badInput("\(format.rawValue.uppercased()) frame is shorter than its size says")
    }
}

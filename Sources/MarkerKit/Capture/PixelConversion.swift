import CVBridge

/// Camera buffers to frames: YUYV (gray straight from the Y samples, no colour conversion; BGR through
/// OpenCV), GREY, and MJPEG (decoded by OpenCV).
public enum PixelConversion {
    public enum CameraFormat: String, Sendable, CaseIterable {
        case yuyv, grey, mjpeg
    }

    /// Converts one buffer; `color` asks for BGR, else gray.
    public static func frame(from bytes: UnsafeRawBufferPointer, format: CameraFormat, width: Int, height: Int,
                             bytesPerLine: Int, color: Bool) throws -> Frame {
        switch format {
        case .grey:
            guard bytesPerLine >= width, bytes.count >= bytesPerLine * (height - 1) + width else { throw truncated(format) }
            var gray = [UInt8](repeating: 0, count: width * height)
            for y in 0..<height {
                for x in 0..<width { gray[y * width + x] = bytes[y * bytesPerLine + x] }
            }
            guard color else { return Frame(width: width, height: height, stride: width, format: .gray8, bytes: gray) }
            return Frame(width: width, height: height, stride: 3 * width, format: .bgr8, bytes: gray.flatMap { [$0, $0, $0] })
        case .yuyv:
            guard width % 2 == 0, bytesPerLine >= 2 * width, bytes.count >= bytesPerLine * (height - 1) + 2 * width else { throw truncated(format) }
            if !color {
                var gray = [UInt8](repeating: 0, count: width * height)
                for y in 0..<height {
                    for x in 0..<width { gray[y * width + x] = bytes[y * bytesPerLine + 2 * x] }
                }
                return Frame(width: width, height: height, stride: width, format: .gray8, bytes: gray)
            }
            var bgr = [UInt8](repeating: 0, count: 3 * width * height)
            let status = bgr.withUnsafeMutableBufferPointer {
                cvb_yuyv_to_bgr(bytes.bindMemory(to: UInt8.self).baseAddress, Int32(width), Int32(height), Int32(bytesPerLine), $0.baseAddress)
            }
            guard status >= 0 else { throw MarkerKitError.badInput("YUYV frame: \(String(cString: cvb_last_error()))") }
            return Frame(width: width, height: height, stride: 3 * width, format: .bgr8, bytes: bgr)
        case .mjpeg:
            var image = cvb_image()
            let status = cvb_image_decode(bytes.bindMemory(to: UInt8.self).baseAddress, Int32(bytes.count), color ? 3 : 1, &image)
            defer { cvb_image_release(&image) }
            guard status >= 0 else { throw MarkerKitError.badInput("MJPEG frame does not decode: \(String(cString: cvb_last_error()))") }
            return Frame(bridged: image, format: color ? .bgr8 : .gray8)
        }
    }

    static func truncated(_ format: CameraFormat) -> MarkerKitError {
        .badInput("\(format.rawValue.uppercased()) frame is shorter than its size says")
    }
}

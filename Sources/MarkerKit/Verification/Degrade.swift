import CVBridge

/// Blur, noise and JPEG applied to a rendered image, in that order (as a camera blurs, its sensor adds
/// noise, and its encoder compresses).
enum Degrade {
    static func apply(_ d: Degradations, to image: inout GrayImage, random: inout SeededRandom) throws {
        let (w, h) = (Int32(image.width), Int32(image.height))
        if d.blur > 0 {
            let status = image.pixels.withUnsafeMutableBufferPointer { cvb_gaussian_blur($0.baseAddress, w, h, w, d.blur) }
            guard status >= 0 else { throw MarkerKitError.internalFailure(String(cString: cvb_last_error())) }
        }
        if d.noise > 0 {
            for i in image.pixels.indices {
                image.pixels[i] = UInt8(max(0, min(255, (Double(image.pixels[i]) + d.noise * random.gaussian()).rounded())))
            }
        }
        if let quality = d.jpegQuality {
            let status = image.pixels.withUnsafeMutableBufferPointer { cvb_jpeg_roundtrip($0.baseAddress, w, h, w, Int32(quality)) }
            guard status >= 0 else { throw MarkerKitError.internalFailure(String(cString: cvb_last_error())) }
        }
    }
}

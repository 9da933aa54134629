import CVBridge

/// Blur, noise and JPEG applied to a rendered image, in that order (as a camera blurs, its sensor adds
/// noise, and its encoder compresses): the lens's Gaussian blur, then motion blur, Gaussian noise, sensor
/// noise, JPEG.
enum Degrade {
    static func apply(_ d: Degradations, to image: inout GrayImage, random: inout SeededRandom) throws {
        let (w, h) = (Int32(image.width), Int32(image.height))
        if d.blur > 0 {
            try Bridge.check(image.pixels.withUnsafeMutableBufferPointer { cvb_gaussian_blur($0.baseAddress, w, h, w, d.blur) })
        }
        if d.motionBlur > 0 {
            try Bridge.check(image.pixels.withUnsafeMutableBufferPointer { cvb_motion_blur($0.baseAddress, w, h, w, d.motionBlur, d.motionBlurAngle) })
        }
        if d.noise > 0 {
            for i in image.pixels.indices {
                image.pixels[i] = UInt8(max(0, min(255, (Double(image.pixels[i]) + d.noise * random.gaussian()).rounded())))
            }
        }
        if let sensor = d.sensorNoise { try sensor.apply(to: &image, seed: random.next()) }
        if let quality = d.jpegQuality {
            try Bridge.check(image.pixels.withUnsafeMutableBufferPointer { cvb_jpeg_roundtrip($0.baseAddress, w, h, w, Int32(quality)) })
        }
    }
}

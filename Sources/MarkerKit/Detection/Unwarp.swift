import CVBridge

/// Stage 5: a candidate's quadrilateral mapped onto a square of 7 x pixelsPerCell pixels (OpenCV's
/// warpPerspective), corner 0 at the square's top-left.
public enum Unwarp {
    public static func square(_ quad: Quad, from image: GrayImage, pixelsPerCell: Int) throws -> GrayImage {
        let size = 7 * pixelsPerCell
        var out = [UInt8](repeating: 0, count: size * size)
        let corners = quad.corners.flatMap { [$0.x, $0.y] }
        let status = image.pixels.withUnsafeBufferPointer { gray in
            out.withUnsafeMutableBufferPointer { target in
                cvb_warp_quad(gray.baseAddress, Int32(image.width), Int32(image.height), Int32(image.width), corners,
                              Int32(size), target.baseAddress)
            }
        }
        guard status >= 0 else { throw MarkerKitError.internalFailure(String(cString: cvb_last_error())) }
        return GrayImage(width: size, height: size, pixels: out)
    }
}

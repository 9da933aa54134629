import MarkerKitKernels

/// Stage 5: a candidate's quadrilateral mapped onto a square of `cells` x pixelsPerCell pixels (7 for a 5x5
/// code and its border) by the homography
/// of its corners, bilinear (what OpenCV's warpPerspective does, without its allocations per call), corner 0
/// at the square's top-left.
public enum Unwarp {
    public static func square(_ quad: Quad, from image: GrayImage, pixelsPerCell: Int, cells: Int = 7) throws -> GrayImage {
        var square = GrayImage.empty
        try self.square(quad, from: image, pixelsPerCell: pixelsPerCell, cells: cells, into: &square)
        return square
    }

    /// The same into `square`, reusing its pixels (one buffer for every candidate of every frame).
    public static func square(_ quad: Quad, from image: GrayImage, pixelsPerCell: Int, cells: Int = 7, into square: inout GrayImage) throws {
        let size = cells * pixelsPerCell
        GrayImage.reuse(&square, width: size, height: size)
        let corners = (quad[0].x, quad[0].y, quad[1].x, quad[1].y, quad[2].x, quad[2].y, quad[3].x, quad[3].y)
        let status = withUnsafeBytes(of: corners) { raw in
            image.pixels.withUnsafeBufferPointer { gray in
                square.pixels.withUnsafeMutableBufferPointer { target in
                    mkk_warp_quad(gray.baseAddress, Int32(image.width), Int32(image.height), Int32(image.width),
                                  raw.bindMemory(to: Double.self).baseAddress, Int32(size), target.baseAddress)
                }
            }
        }
        try Bridge.check(status)
    }
}

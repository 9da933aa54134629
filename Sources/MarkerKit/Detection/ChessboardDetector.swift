import CVBridge

/// Finds a checkerboard's inner corners with OpenCV's `findChessboardCorners` and `cornerSubPix`.
public struct ChessboardDetector: Sendable {
    public let innerColumns: Int
    public let innerRows: Int

    public init(innerColumns: Int, innerRows: Int) {
        self.innerColumns = innerColumns
        self.innerRows = innerRows
    }

    /// The inner corners row by row in OpenCV's order, or nil when the board is not found.
    public func detect(in image: GrayImage) throws -> [Point2]? {
        var xy = [Double](repeating: 0, count: 2 * innerColumns * innerRows)
        let found = image.pixels.withUnsafeBufferPointer { pixels in
            cvb_find_chessboard(pixels.baseAddress, Int32(image.width), Int32(image.height), Int32(image.width),
                                Int32(innerColumns), Int32(innerRows), &xy)
        }
        guard found >= 0 else { throw MarkerKitError.internalFailure(String(cString: cvb_last_error())) }
        guard found == 1 else { return nil }
        return (0..<(innerColumns * innerRows)).map { Point2(x: xy[2 * $0], y: xy[2 * $0 + 1]) }
    }
}

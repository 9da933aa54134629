import CVBridge

/// Chessboard corners at live speed: the board is looked for on a frame reduced to about 640 px wide
/// with OpenCV's FAST_CHECK (which says "no board" quickly), and the corners found there are refined
/// with cornerSubPix on the full frame.
public struct FastChessboardFinder: Sendable {
    public let innerColumns: Int
    public let innerRows: Int
    /// Frames wider than this are reduced first.
    public var reduceAbove = 800

    public init(innerColumns: Int, innerRows: Int) {
        self.innerColumns = innerColumns
        self.innerRows = innerRows
    }

    public func find(in gray: GrayImage) throws -> [Point2]? {
        let finder = ChessboardDetector(innerColumns: innerColumns, innerRows: innerRows, method: .classicFastCheck)
        guard gray.width > reduceAbove else { return try finder.detect(in: gray) }
        let scale = 640.0 / Double(gray.width)
        let (w, h) = (Int(Double(gray.width) * scale), Int(Double(gray.height) * scale))
        var small = [UInt8](repeating: 0, count: w * h)
        let status = gray.pixels.withUnsafeBufferPointer { source in
            small.withUnsafeMutableBufferPointer {
                cvb_resize_gray(source.baseAddress, Int32(gray.width), Int32(gray.height), Int32(gray.width), Int32(w), Int32(h), $0.baseAddress)
            }
        }
        guard status >= 0 else { throw MarkerKitError.internalFailure(String(cString: cvb_last_error())) }
        guard let found = try finder.detect(in: GrayImage(width: w, height: h, pixels: small)) else { return nil }
        // Pixel centres at integers: scale about the pixel edges, not the centres.
        let full = found.map { Point2(x: ($0.x + 0.5) / scale - 0.5, y: ($0.y + 0.5) / scale - 0.5) }
        let spacing = zip(full, full.dropFirst()).map { $0.distance(to: $1) }.min() ?? 10
        return try ChessboardDetector.refine(full, in: gray, halfWindow: max(2, min(11, Int((spacing / 5).rounded()))))
    }
}

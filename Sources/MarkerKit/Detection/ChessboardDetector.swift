import CVBridge

/// Finds a checkerboard's inner corners with OpenCV: the classic `findChessboardCorners` refined by
/// `cornerSubPix`, or the sector-based `findChessboardCornersSB`.
public struct ChessboardDetector: Sendable {
    public enum Method: String, Sendable, CaseIterable {
        /// findChessboardCorners + cornerSubPix.
        case classic
        /// findChessboardCornersSB (with CALIB_CB_ACCURACY).
        case sectorBased = "sb"
        /// findChessboardCorners with CALIB_CB_FAST_CHECK + cornerSubPix: quick to say "no board".
        case classicFastCheck = "fast"
        /// findChessboardCorners alone, default flags or FAST_CHECK: baselines for the benchmark.
        case openCVDefault = "opencv"
        case openCVFastCheck = "opencv-fast"

        public var summary: String {
            switch self {
            case .classic: return "findChessboardCorners + cornerSubPix"
            case .sectorBased: return "findChessboardCornersSB"
            case .classicFastCheck: return "findChessboardCorners (FAST_CHECK) + cornerSubPix"
            case .openCVDefault: return "findChessboardCorners"
            case .openCVFastCheck: return "findChessboardCorners (FAST_CHECK)"
            }
        }

        var bridgeCode: Int32 {
            switch self {
            case .classic: return 0
            case .sectorBased: return 1
            case .classicFastCheck: return 2
            case .openCVDefault: return 3
            case .openCVFastCheck: return 4
            }
        }
    }

    public let innerColumns: Int
    public let innerRows: Int
    public var method: Method
    /// cornerSubPix half window in pixels; 0 picks a fifth of the shortest corner spacing (2 to 11).
    public var halfWindow: Int

    public init(innerColumns: Int, innerRows: Int, method: Method = .classic, halfWindow: Int = 0) {
        self.innerColumns = innerColumns
        self.innerRows = innerRows
        self.method = method
        self.halfWindow = halfWindow
    }

    /// cornerSubPix on corners found elsewhere (a downscaled frame), at full resolution.
    public static func refine(_ corners: [Point2], in image: GrayImage, halfWindow: Int) throws -> [Point2] {
        var xy = corners.flatMap { [$0.x, $0.y] }
        let status = image.pixels.withUnsafeBufferPointer {
            cvb_refine_corners($0.baseAddress, Int32(image.width), Int32(image.height), Int32(image.width), &xy, Int32(corners.count), Int32(halfWindow))
        }
        guard status >= 0 else { throw MarkerKitError.internalFailure(String(cString: cvb_last_error())) }
        return (0..<corners.count).map { Point2(x: xy[2 * $0], y: xy[2 * $0 + 1]) }
    }

    /// The inner corners row by row in OpenCV's order, or nil when the board is not found.
    public func detect(in image: GrayImage) throws -> [Point2]? {
        var xy = [Double](repeating: 0, count: 2 * innerColumns * innerRows)
        let found = image.pixels.withUnsafeBufferPointer { pixels in
            cvb_find_chessboard(pixels.baseAddress, Int32(image.width), Int32(image.height), Int32(image.width),
                                Int32(innerColumns), Int32(innerRows), method.bridgeCode, Int32(halfWindow), &xy)
        }
        guard found >= 0 else { throw MarkerKitError.internalFailure(String(cString: cvb_last_error())) }
        guard found == 1 else { return nil }
        return (0..<(innerColumns * innerRows)).map { Point2(x: xy[2 * $0], y: xy[2 * $0 + 1]) }
    }
}

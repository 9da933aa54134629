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

        var bridgeMethod: cvb_chessboard_method {
            switch self {
            case .classic: return CVB_CHESSBOARD_CLASSIC
            case .sectorBased: return CVB_CHESSBOARD_SECTOR_BASED
            case .classicFastCheck: return CVB_CHESSBOARD_CLASSIC_FAST_CHECK
            case .openCVDefault: return CVB_CHESSBOARD_OPENCV_DEFAULT
            case .openCVFastCheck: return CVB_CHESSBOARD_OPENCV_FAST_CHECK
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
    public static func refine(_ corners: [Point2], in image: GrayImage, halfWindow: Int, maxIterations: Int = 30,
                              epsilon: Double = 0.001) throws -> [Point2] {
        var xy = corners.flatMap { [$0.x, $0.y] }
        let status = image.pixels.withUnsafeBufferPointer {
            cvb_refine_corners($0.baseAddress, Int32(image.width), Int32(image.height), Int32(image.width), &xy, Int32(corners.count), Int32(halfWindow),
                               Int32(maxIterations), epsilon)
        }
        try Bridge.check(status)
        return (0..<corners.count).map { Point2(x: xy[2 * $0], y: xy[2 * $0 + 1]) }
    }

    /// cornerSubPix's half window for corners in OpenCV's order: a fifth of the shortest distance between
    /// neighbouring corners, so the window never reaches the next corner (2 to `largest` pixels).
    public static func halfWindow(for corners: [Point2], columns: Int, at largest: Int = 11) -> Int {
        let shortest = shortestSpacing(corners, columns: columns)
        return shortest.isFinite ? max(2, min(largest, Int((shortest / 5).rounded()))) : 2
    }

    /// The shortest distance between neighbouring corners in OpenCV's order (infinity for fewer than two).
    static func shortestSpacing(_ corners: [Point2], columns: Int) -> Double {
        var shortest = Double.infinity
        for (i, p) in corners.enumerated() {
            if (i + 1) % columns != 0, i + 1 < corners.count { shortest = min(shortest, p.distance(to: corners[i + 1])) }
            if i + columns < corners.count { shortest = min(shortest, p.distance(to: corners[i + columns])) }
        }
        return shortest
    }

    /// The inner corners row by row in OpenCV's order, or nil when the board is not found.
    public func detect(in image: GrayImage) throws -> [Point2]? {
        try Self.find(in: image, columns: innerColumns, rows: innerRows, bridgeMethod: method.bridgeMethod, halfWindow: halfWindow)
    }

    /// findChessboardCorners with no flags and no refinement: the quick look on a reduced frame.
    static func quickLook(in image: GrayImage, columns: Int, rows: Int) throws -> [Point2]? {
        try find(in: image, columns: columns, rows: rows, bridgeMethod: CVB_CHESSBOARD_QUICK_LOOK, halfWindow: 0)
    }

    static func find(in image: GrayImage, columns: Int, rows: Int, bridgeMethod: cvb_chessboard_method, halfWindow: Int) throws -> [Point2]? {
        var xy = [Double](repeating: 0, count: 2 * columns * rows)
        let found = image.pixels.withUnsafeBufferPointer { pixels in
            cvb_find_chessboard(pixels.baseAddress, Int32(image.width), Int32(image.height), Int32(image.width),
                                Int32(columns), Int32(rows), bridgeMethod, Int32(halfWindow), &xy)
        }
        try Bridge.check(found)
        guard found == 1 else { return nil }
        return (0..<(columns * rows)).map { Point2(x: xy[2 * $0], y: xy[2 * $0 + 1]) }
    }
}

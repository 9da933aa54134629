/// A checkerboard's corners and pose in a frame (`detect --board` and `track --board` with a checkerboard
/// spec): the inner corners as `ChessboardFinder` finds them in photos (`FastChessboardFinder` in live frames) (OpenCV's findChessboardCorners order, row
/// by row), and with a calibration the board's pose from all of them, in OpenCV's calibration frame for a
/// chessboard (origin at the first inner corner, x along its row, y down the columns, z into the print), in
/// metres: both of IPPE's poses refined as for a ChArUco board. A board with as many squares across as
/// down, or both counts odd (`Checkerboard.isSymmetric`), looks the same turned half a circle, so its
/// first corner, and with it the pose's x and y, can come from either end; boards with one even and one
/// odd count of squares (9x6 inner corners) have one order.
public struct CheckerboardPose: Sendable {
    public let board: Checkerboard
    private let finder: FastChessboardFinder
    /// Photos (`detect`): every search of `ChessboardFinder` and each corner fitted; nil: live frames
    /// (`track`), `FastChessboardFinder` alone, which gives up early so as to keep up.
    private let photoFinder: ChessboardFinder?
    /// The corners in the board's frame (metres), in the finder's order.
    private let points: [SIMD3<Double>]
    /// How long the board's axes are drawn (metres): three squares.
    public var axisLength: Double { 3 * board.square.millimetres / 1000 }

    public init(board: Checkerboard, photos: Bool = false) {
        self.board = board
        finder = FastChessboardFinder(innerColumns: board.innerColumns, innerRows: board.innerRows)
        photoFinder = photos ? ChessboardFinder(innerColumns: board.innerColumns, innerRows: board.innerRows) : nil
        let side = board.square.millimetres / 1000
        points = (0..<(board.innerColumns * board.innerRows)).map {
            SIMD3(Double($0 % board.innerColumns) * side, Double($0 / board.innerColumns) * side, 0)
        }
    }

    /// The inner corners found in `gray`, numbered in OpenCV's order; none when the whole board is not seen.
    public func corners(in gray: GrayImage) throws -> [CharucoDetection.Corner] {
        var none: StageTimings?
        return try corners(in: gray, timings: &none)
    }

    /// As `corners(in:)`, with the time of the search ("board search") and, in photos, of the corner fit ("corner fit").
    public func corners(in gray: GrayImage, timings: inout StageTimings?) throws -> [CharucoDetection.Corner] {
        if let photoFinder {
            let found = try photoFinder.find(in: gray) { search, fit in
                timings?.add("board search", seconds: search)
                if fit > 0 { timings?.add("corner fit", seconds: fit) }
            }
            guard let found else { return [] }
            return found.corners.enumerated().map { CharucoDetection.Corner(id: $0.offset, point: $0.element) }
        }
        let start = ContinuousClock.now
        let found = try finder.find(in: gray)
        timings?.add("board search", ContinuousClock.now - start)
        guard let found else { return [] }
        return found.enumerated().map { CharucoDetection.Corner(id: $0.offset, point: $0.element) }
    }

    /// The board's pose from its corners through `calibration`, or nil when they are not the whole board
    /// or fix no pose.
    public func pose(of corners: [CharucoDetection.Corner], calibration: CameraCalibration) -> MarkerMapPose.Result? {
        guard corners.count == points.count else { return nil }
        var object: [Double] = [], image: [Double] = []
        for corner in corners {
            let p = points[corner.id]
            object += [p.x, p.y, p.z]
            image += [corner.point.x, corner.point.y]
        }
        guard let (poses, solutions) = try? MarkerMapPose.solve(object: object, image: image, planar: true, calibration: calibration) else { return nil }
        return MarkerMapPose.Result(poses: poses, solutions: solutions, markers: [], outliers: [], corners: corners.count)
    }

    /// The pose's sigma, each corner's noise estimated from the pose's reprojection error `error`
    /// (`PoseUncertainty.fromResidual`).
    public func sigma(of corners: [CharucoDetection.Corner], pose: MarkerPose, error: Double, calibration: CameraCalibration) -> PoseSigma? {
        PoseUncertainty.fromResidual(object: corners.filter { points.indices.contains($0.id) }.map { points[$0.id] }, pose: pose, error: error,
                                     calibration: calibration)
    }
}

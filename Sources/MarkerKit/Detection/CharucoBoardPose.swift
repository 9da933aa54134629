/// One pose for a ChArUco board from its chessboard corners found in a frame, as OpenCV's
/// `estimatePoseCharucoBoard` gives it: the board's frame (origin at its top-left outer corner, x along
/// the columns, y down the rows, z into the print), in metres. Both of IPPE's poses on the board's plane,
/// each refined by Levenberg-Marquardt, as for a sheet's marker map (`MarkerMapPose`), so a small or
/// distant board's two poses can be told apart by the frames before. At least 4 corners, not all on one
/// row or one column (OpenCV's rule).
public struct CharucoBoardPose: Sendable {
    public let board: CharucoBoard
    /// The corners in the board's frame (metres), by ID.
    private let points: [SIMD3<Double>]
    private let markerIDs: Set<Int>
    /// How long the board's axes are drawn (metres): three squares.
    public var axisLength: Double { 3 * board.square.millimetres / 1000 }

    public init(board: CharucoBoard) {
        self.board = board
        points = board.corners.map { SIMD3($0.x / 1000, $0.y / 1000, 0) }
        markerIDs = Set(board.markers.map(\.id))
    }

    /// The rotation (camera from marker frame) marker `id` of the board has when the board has `pose`:
    /// a marker's frame is the board's turned half a circle about x (y up and z out of the print).
    public func markerRotation(_ id: Int, boardPose pose: MarkerPose) -> MarkerPose? {
        guard markerIDs.contains(id) else { return nil }
        return MarkerPose(rvec: Pose3D.compose([Double.pi, 0, 0], then: pose.rvec), tvec: pose.tvec)
    }

    /// The board's pose from `corners` through `calibration`, or nil when they are too few or on one line
    /// (one row, one column, or a diagonal);
    /// `markers` lists the board's markers seen (the result's `markers`).
    public func pose(of corners: [CharucoDetection.Corner], markers: [MarkerDetection], calibration: CameraCalibration) throws -> MarkerMapPose.Result? {
        let used = corners.filter { points.indices.contains($0.id) }
        let columns = board.squaresX - 1
        guard used.count >= 4, Set(used.map { $0.id / columns }).count > 1, Set(used.map { $0.id % columns }).count > 1 else { return nil }
        // Corners on one line across rows and columns (a diagonal of the board) do not fix a pose either.
        let first = points[used[0].id], far = used.map { points[$0.id] }.max { (($0 - first) * ($0 - first)).sum() < (($1 - first) * ($1 - first)).sum() }!
        let across = used.map { p -> Double in let d = points[p.id] - first, e = far - first; return abs(d.x * e.y - d.y * e.x) }.max() ?? 0
        guard across > 1e-6 * ((far - first) * (far - first)).sum() else { return nil }
        var object: [Double] = [], image: [Double] = []
        object.reserveCapacity(3 * used.count)
        image.reserveCapacity(2 * used.count)
        for corner in used {
            let p = points[corner.id]
            object += [p.x, p.y, p.z]
            image += [corner.point.x, corner.point.y]
        }
        // Corners on one line across rows and columns (a diagonal) pass the rule above but have no pose:
        // OpenCV's solver refuses them, and the frame has no board pose.
        guard let (poses, solutions) = try? MarkerMapPose.solve(object: object, image: image, planar: true, calibration: calibration) else { return nil }
        return MarkerMapPose.Result(poses: poses, solutions: solutions, markers: Set(markers.map(\.id).filter(markerIDs.contains)).sorted(), outliers: [],
                                    corners: used.count)
    }

    /// The sigma of the board's pose `pose` from `corners` (those of the board), each corner's noise
    /// estimated from the pose's reprojection error `error` (`PoseUncertainty.fromResidual`).
    public func sigma(of corners: [CharucoDetection.Corner], pose: MarkerPose, error: Double, calibration: CameraCalibration) -> PoseSigma? {
        PoseUncertainty.fromResidual(object: corners.filter { points.indices.contains($0.id) }.map { points[$0.id] }, pose: pose, error: error,
                                     calibration: calibration)
    }
}

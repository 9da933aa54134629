/// One frame through detection and pose, as `detect` and `track` both report it: corners in the sensor's
/// pixel coordinates, poses from the calibration, optionally the annotated picture.
public struct MarkerFrameAnalyzer {
    public var detector = MarkerDetector()
    /// Poses from this calibration; pictures of another size get it scaled or refused (`CalibrationFit`).
    public var poseEstimator: MarkerPoseEstimator? { didSet { fitted = nil } }
    /// The estimator fitted to the last picture's size, kept while pictures keep that size.
    private var fitted: (width: Int, height: Int, estimator: MarkerPoseEstimator)?
    /// In a video or a stream (frames in order): an ambiguous marker's pose chosen by the frames before.
    public var poseHistory: PoseHistory?
    /// With `--smooth`: each marker's reported pose (and the target's) smoothed over the frames before
    /// (`PoseSmoother`), for overlays; the history still decides on the frame's own poses.
    public var smoother: PoseSmoother?
    /// The target's smoother (made on the first target pose when `smoother` is set).
    private var targetSmoother: PoseSmoother?
    /// A marker map whose pose is found from its markers (with a calibration); its ambiguous markers take
    /// the pose the map's gives them.
    public var markerMap: MarkerMapPose?
    /// The map's own two poses followed from frame to frame (with `poseHistory`; made on the first pose).
    private var targetHistory: PoseHistory?
    /// A ChArUco board whose corners are looked for near its markers (its dictionary is the detector's);
    /// with a calibration, the board's pose from them (`CharucoBoardPose`) is the frame's target.
    public var board: CharucoDetector? { didSet { boardPose = board.map { CharucoBoardPose(board: $0.board) } } }
    private var boardPose: CharucoBoardPose?
    /// A checkerboard whose inner corners are found in every frame; with a calibration its pose is the
    /// frame's target.
    public var checkerboard: CheckerboardPose?
    /// ChArUco diamonds looked for among the markers found, and with `diamondPoses` (a pose estimator whose
    /// side is the diamond's square) their poses.
    public var diamonds: DiamondDetector?
    public var diamondPoses: MarkerPoseEstimator?
    /// Display turn/mirror applied before detection; reported corners are mapped back to the sensor.
    public var transform: FrameTransform?
    public var timings: StageTimings?
    /// The detector's buffers, reused frame after frame.
    private let workspace = DetectorWorkspace()
    /// At most this many workers for one frame (`DetectorWorkspace.frameWorkers`; 0: the pool's setting).
    public var frameWorkers: Int {
        get { workspace.frameWorkers }
        nonmutating set { workspace.frameWorkers = newValue }
    }
    /// The turned frame, the markers found and the markers reported, reused frame after frame (the
    /// reported list is handed out in the result: once the caller lets go of it, the next frame refills it).
    private var turned = Frame.empty
    private var found: [MarkerDetection] = []
    private var reported: [DetectionReport.Marker] = []

    public init(poseEstimator: MarkerPoseEstimator? = nil, transform: FrameTransform? = nil, collectTimings: Bool = false) {
        self.poseEstimator = poseEstimator
        self.transform = transform
        timings = collectTimings ? StageTimings() : nil
    }

    /// The result, and the annotated frame (as displayed) when `annotate` is set.
    public mutating func analyze(_ sourced: SourcedFrame, annotate: Bool) throws -> (DetectionReport.FrameResult, Frame?) {
        let sensor = sourced.frame
        let poseEstimator = try estimator(width: sensor.width, height: sensor.height)
        let turn = transform.flatMap { $0.isIdentity ? nil : $0 }
        if let turn {
            turn.apply(sensor, into: &turned)
            try detector.detect(in: turned, workspace: workspace, timings: &timings, into: &found)
            for i in found.indices {
                found[i] = MarkerDetection(id: found[i].id, quad: found[i].quad.map { turn.toSensor($0, width: sensor.width, height: sensor.height) },
                                           noise: found[i].noise)
            }
        } else {
            try detector.detect(in: sensor, workspace: workspace, timings: &timings, into: &found)
        }
        var boardCorners: [CharucoDetection.Corner] = []
        if let board {
            // The corners are found in the sensor's picture, near the board's markers found there.
            let gray = turn == nil ? workspace.gray : try Grayscale.image(from: sensor)
            let start = ContinuousClock.now
            boardCorners = board.detection(in: gray, markers: found).corners
            timings?.add("board corners", ContinuousClock.now - start)
        } else if let checkerboard {
            boardCorners = try checkerboard.corners(in: turn == nil ? workspace.gray : try Grayscale.image(from: sensor), timings: &timings)
        }
        let diamondsFound = try diamonds.map { $0.diamonds(in: turn == nil ? workspace.gray : try Grayscale.image(from: sensor), markers: found) }
        let diamondEstimator = try diamondPoses?.fitted(width: sensor.width, height: sensor.height)
        let target = try poseEstimator.flatMap { try targetPose(calibration: $0.calibration, frame: sourced.index, boardCorners: boardCorners) }
        reported.removeAll(keepingCapacity: true)
        for marker in found {
            guard let poseEstimator else {
                reported.append(DetectionReport.Marker(marker, poses: nil))
                continue
            }
            var poses = try poseEstimator.poses(of: marker), decided = DetectionReport.Pose.Decision.reprojection
            if poseHistory != nil { (poses, decided) = poseHistory!.decide(poses, id: marker.id, frame: sourced.index, corners: marker.quad) }
            if poses.isAmbiguous, let target, !target.outliers.contains(marker.id),
               let expected = markerMap?.markerRotation(marker.id, mapPose: target.pose.pose)
                   ?? boardPose?.markerRotation(marker.id, boardPose: target.pose.pose) {
                let nearer = poses.other.degrees(from: expected) < poses.chosen.degrees(from: expected)
                (poses, decided) = (nearer ? poses.swapped : poses, .board)
            }
            let smoothed = smoother?.smooth(poses.chosen, id: marker.id, frame: sourced.index)
            reported.append(DetectionReport.Marker(marker, poses: poses, decided: decided, sigma: poseEstimator.sigma(of: marker, pose: poses.chosen),
                                                   smoothed: smoothed))
        }
        var annotated: Frame?
        if annotate {
            var picture = sensor.format == .bgr8 ? sensor : try Self.bgr(sensor)
            var poses: [Int: MarkerPose] = [:], sigmas: [Int: PoseSigma] = [:]
            for (index, marker) in reported.enumerated() {
                if let pose = marker.pose { poses[index] = pose.pose }
                if let sigma = marker.pose?.sigma { sigmas[index] = sigma }
            }
            try MarkerAnnotator(poseEstimator: poseEstimator).annotate(&picture, markers: found, poses: poses, sigmas: sigmas)
            if let target, let length = markerMap?.axisLength ?? boardPose?.axisLength ?? checkerboard?.axisLength {
                try MarkerAnnotator(poseEstimator: poseEstimator).drawAxes(&picture, pose: target.pose.pose, length: length, sigma: target.pose.sigma)
            }
            if board != nil || checkerboard != nil { try MarkerAnnotator().drawBoardCorners(&picture, boardCorners) }
            for diamond in diamondsFound ?? [] {
                try MarkerAnnotator().drawBoardCorners(&picture, diamond.corners.enumerated().map { CharucoDetection.Corner(id: $0.offset, point: $0.element) })
            }
            annotated = turn.map { $0.apply(picture) } ?? picture
        }
        var result = DetectionReport.FrameResult(source: sourced.source, index: sourced.index, width: sensor.width, height: sensor.height,
                                                 dictionary: detector.dictionary, markers: reported, orientation: sourced.orientation)
        if let board { result.board = DetectionReport.BoardCorners(type: "charuco", total: board.board.corners.count, corners: boardCorners) }
        if let checkerboard {
            result.board = DetectionReport.BoardCorners(type: "checkerboard", total: checkerboard.board.innerColumns * checkerboard.board.innerRows,
                                                        corners: boardCorners)
        }
        result.target = target
        result.diamonds = try diamondsFound?.map { diamond in
            DetectionReport.Diamond(diamond, poses: try diamondEstimator?.poses(of: MarkerDetection(id: diamond.ids[0], corners: diamond.corners)))
        }
        return (result, annotated)
    }

    /// The marker map's pose from the markers found, or the ChArUco board's from its corners, its two poses
    /// decided by the frames before in a stream.
    private mutating func targetPose(calibration: CameraCalibration, frame: Int, boardCorners: [CharucoDetection.Corner]) throws -> DetectionReport.MapPose? {
        let found = try markerMap.map { try $0.pose(of: self.found, calibration: calibration) }
            ?? boardPose.map { try $0.pose(of: boardCorners, markers: self.found, calibration: calibration) }
            ?? checkerboard.map { $0.pose(of: boardCorners, calibration: calibration) }
        guard var result = found.flatMap({ $0 }) else { return nil }
        var decided = DetectionReport.Pose.Decision.reprojection
        if poseHistory != nil, targetHistory == nil { targetHistory = PoseHistory(ids: 1) }
        if result.solutions > 1, targetHistory != nil { (result.poses, decided) = targetHistory!.decide(result.poses, id: 0, frame: frame) }
        let pose = result.poses.chosen
        let sigma = markerMap.map { $0.sigma(of: self.found, used: result.markers, pose: pose, calibration: calibration) }
            ?? boardPose.map { $0.sigma(of: boardCorners, pose: pose, error: result.poses.chosenError, calibration: calibration) }
            ?? checkerboard.map { $0.sigma(of: boardCorners, pose: pose, error: result.poses.chosenError, calibration: calibration) }
        var smoothed: MarkerPose?
        if smoother != nil {
            if targetSmoother == nil { targetSmoother = PoseSmoother(ids: 1) }
            smoothed = targetSmoother!.smooth(pose, id: 0, frame: frame)
        }
        return DetectionReport.MapPose(result, decided: decided, sigma: sigma.flatMap { $0 }, smoothed: smoothed)
    }

    /// The pose estimator for pictures of this size, fitted once while the size stays.
    private mutating func estimator(width: Int, height: Int) throws -> MarkerPoseEstimator? {
        guard let poseEstimator else { return nil }
        if let fitted, fitted.width == width, fitted.height == height { return fitted.estimator }
        let estimator = try poseEstimator.fitted(width: width, height: height)
        fitted = (width, height, estimator)
        return estimator
    }

    static func bgr(_ frame: Frame) throws -> Frame {
        let gray = try Grayscale.image(from: frame)
        return Frame(width: gray.width, height: gray.height, stride: 3 * gray.width, format: .bgr8, bytes: gray.pixels.flatMap { [$0, $0, $0] })
    }
}

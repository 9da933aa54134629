import CVBridge
import Foundation

/// Runs a pose clip (`PoseClip`) through MarkerKit (`detect`'s and `track`'s detector and poses, each
/// segment a stream: poses chosen with `PoseHistory`; a board's or a map's pose as `--board` gives it) and
/// through OpenCV 4.6 as its users estimate a pose frame by frame (a marker's by `detectMarkers`, then
/// `solvePnP` with `SOLVEPNP_IPPE_SQUARE`; a ChArUco board's by `interpolateCornersCharuco` and `solvePnP`
/// on its corners; a sheet's or cube's by `solvePnP` on its markers' corners), and scores every frame
/// against the truth.
///
/// A flip is a jump between the subject's two poses: the truth's own two IPPE poses (from its exact
/// corners) are told apart when they differ by `PoseVerification.distinctDegrees` or more, and in those
/// frames a reported pose is on the true side or the mirror side, whichever it is nearer in rotation. A
/// flip is a change of side from one such frame of a segment to the next frame of it where the marker is
/// found.
public struct PoseVerification {
    /// The two poses of the truth count as distinct from this many degrees apart.
    public static let distinctDegrees = 5.0

    /// One contender's result in one frame.
    public struct Outcome: Codable, Sendable, Equatable {
        public let found: Bool
        public var rotationError: Double?
        /// Translation error relative to the distance, percent.
        public var translationError: Double?
        /// +1 on the true side, -1 on the mirror side, 0 when the truth's two poses are not distinct or the
        /// marker was not found.
        public var side = 0
        /// The pose jumped to the other side since the last frame of the segment with a side.
        public var flip = false
        /// The rotation's and the translation's error over the sigma the contender predicted for them
        /// (MarkerKit's `PoseSigma`; absent for contenders that predict none).
        public var rotationZ: Double?
        public var translationZ: Double?
        /// In a still frame after a still frame: how far the pose turned since (degrees; the truth did not).
        public var turn: Double?
    }

    /// One frame: its conditions and each contender's outcome.
    public struct Trial: Codable, Sendable {
        public let index: Int
        public let segment: Int
        public let sizePixels: Double
        public let tiltDegrees: Double
        public let still: Bool
        public var outcomes: [String: Outcome]
    }

    /// MarkerKit as `track` reports it; MarkerKit's better-reprojecting pose of each frame alone (what
    /// history changes); MarkerKit as `track --smooth` reports it (`PoseSmoother`); OpenCV.
    public static let contenders = ["markerkit", "mk-frame", "mk-smooth", "opencv"]

    public let clip: PoseClip

    public init(clip: PoseClip) {
        self.clip = clip
    }

    /// What one frame's truth says: the subject's pose, its exact two poses, and for a marker its corners.
    struct Truth {
        let pose: MarkerPose
        let exact: MarkerPoses
        let marker: SceneTruth.Marker?
    }

    /// Renders the frames on `jobs` threads (OpenCV's per-frame poses there too); MarkerKit's come on
    /// the calling thread in frame order, as a stream's do. `progress` may throw to stop the run.
    public func run(jobs: Int = 1, progress: (Int, Int) throws -> Void = { _, _ in }) throws -> [Trial] {
        try clip.checkSizes()
        let clip = clip, total = clip.frameCount
        var taken = 0
        typealias Work = (renderer: SceneRenderer, index: Int)
        var trials: [Trial] = []
        var analyzer = Self.analyzer(clip)
        var smoother = PoseSmoother(ids: analyzer.detector.dictionary.count)
        var lastSide: [String: Int] = [:]
        var lastPose: [String: (MarkerPose, Int)] = [:]
        try OrderedJobs.run(jobs: jobs, makeState: { () -> Work in (SceneRenderer(), 0) }, take: { (work: inout Work) in
            guard taken < total else { return false }
            work.index = taken
            taken += 1
            return true
        }, work: { (work: inout Work) -> (PoseClip.Frame, GrayImage, Truth, MarkerPose?) in
            let frame = try clip.frame(work.index)
            let image = try work.renderer.render(frame.scene)
            let truth = try Self.truth(of: frame, clip: clip)
            return (frame, image, truth, try Self.openCVPose(in: image, truth: truth, clip: clip))
        }, deliver: { (frame, image, truth, opencv) in
            if frame.segment != trials.last?.segment {
                analyzer = Self.analyzer(clip)
                smoother = PoseSmoother(ids: analyzer.detector.dictionary.count)
                lastSide = [:]
                lastPose = [:]
            }
            let gray = MarkerKit.Frame(width: image.width, height: image.height, stride: image.width, format: .gray8, bytes: image.pixels)
            let (result, _) = try analyzer.analyze(SourcedFrame(source: "clip", index: trials.count, frame: gray), annotate: false)
            let report = truth.marker.map { marker in Self.nearest(result.markers.filter { $0.id == marker.id }, truth: marker)?.pose } ?? result.target?.pose
            // The frame alone: the pose of the two that reprojects better.
            let alone = report.map { r in r.alternative.map { ($0.error < (r.error ?? 0)) ? MarkerPose(rotation: $0.rotation, translation: $0.translation) : r.pose } ?? r.pose }
            // As track --smooth reports it: the stream's poses through the smoother.
            let smoothed = report.map { smoother.smooth($0.pose, id: truth.marker?.id ?? 0, frame: trials.count) }
            let poses = ["markerkit": report?.pose, "mk-frame": alone, "mk-smooth": smoothed, "opencv": opencv]
            var outcomes = ["markerkit": Self.score(report?.pose, sigma: report?.sigma, truth: truth), "mk-frame": Self.score(alone, truth: truth),
                            "mk-smooth": Self.score(smoothed, truth: truth), "opencv": Self.score(opencv, truth: truth)]
            let stillBefore = trials.last.map { $0.segment == frame.segment && $0.still } ?? false
            for name in Self.contenders {
                if outcomes[name]!.side != 0 {
                    outcomes[name]!.flip = lastSide[name].map { $0 != outcomes[name]!.side } ?? false
                    lastSide[name] = outcomes[name]!.side
                }
                // Jitter: how far a pose turns from one still frame to the next (the truth does not move).
                if frame.still, stillBefore, let pose = poses[name]!, let (last, index) = lastPose[name], index == trials.count - 1 {
                    outcomes[name]!.turn = pose.degrees(from: last)
                }
                if let pose = poses[name]! { lastPose[name] = (pose, trials.count) }
            }
            trials.append(Trial(index: trials.count, segment: frame.segment, sizePixels: frame.sizePixels, tiltDegrees: frame.tiltDegrees,
                                still: frame.still, outcomes: outcomes))
            try progress(trials.count, total)
        })
        return trials
    }

    /// A fresh stream: MarkerKit's analyzer as `track` runs it, with poses and their history (and the
    /// board, for a board's clip).
    static func analyzer(_ clip: PoseClip) -> MarkerFrameAnalyzer {
        var analyzer: MarkerFrameAnalyzer
        switch clip.subject {
        case .marker:
            analyzer = MarkerFrameAnalyzer(poseEstimator: MarkerPoseEstimator(calibration: clip.camera, side: PoseClip.side))
        case .charuco(let board):
            analyzer = MarkerFrameAnalyzer(poseEstimator: MarkerPoseEstimator(calibration: clip.camera, side: board.marker.millimetres / 1000))
            analyzer.detector = MarkerDetector(dictionary: board.dictionary)
            analyzer.board = CharucoDetector(board: board)
        case .sheet(let map), .cube(let map):
            let side = map.markers[0].side * map.millimetresPerUnit / 1000
            analyzer = MarkerFrameAnalyzer(poseEstimator: MarkerPoseEstimator(calibration: clip.camera, side: side))
            analyzer.markerMap = MarkerMapPose(map: map)
        }
        analyzer.poseHistory = PoseHistory(ids: analyzer.detector.dictionary.count)
        return analyzer
    }

    /// The truth of a frame: a marker's pose (mm, as the clip's marker side) or a board's (metres).
    static func truth(of frame: PoseClip.Frame, clip: PoseClip) throws -> Truth {
        switch clip.subject {
        case .marker:
            guard let marker = try SceneTruth.markers(of: frame.scene).first else {
                throw MarkerKitError.badInput("a frame of the pose clip shows no marker")
            }
            let exact = try MarkerPoseEstimator(calibration: clip.camera, side: PoseClip.side).poses(of: MarkerDetection(id: marker.id, corners: marker.corners))
            return Truth(pose: MarkerPose(rvec: marker.pose.rvec, tvec: marker.pose.tvec), exact: exact, marker: marker)
        case .charuco(let board):
            let pose = MarkerPose(rvec: frame.pose.rvec, tvec: frame.pose.tvec.map { $0 / 1000 })
            let seen = try SceneTruth.charucoCorners(of: frame.scene).first
            guard let seen, seen.ids.count >= 4 else { return Truth(pose: pose, exact: MarkerPoses(chosen: pose, other: pose, chosenError: 0, otherError: 0), marker: nil) }
            let points = board.corners
            let object = seen.ids.flatMap { [points[$0].x / 1000, points[$0].y / 1000, 0.0] }
            // Corners in view that fix no pose (on one line) leave the frame without a mirror: no side, no flip.
            guard let (exact, _) = try? MarkerMapPose.solve(object: object, image: seen.corners.flatMap { [$0.x, $0.y] }, planar: true,
                                                            calibration: clip.camera) else {
                return Truth(pose: pose, exact: MarkerPoses(chosen: pose, other: pose, chosenError: 0, otherError: 0), marker: nil)
            }
            return Truth(pose: pose, exact: exact, marker: nil)
        case .sheet(let map), .cube(let map):
            let pose = MarkerPose(rvec: frame.pose.rvec, tvec: frame.pose.tvec.map { $0 / 1000 })
            let exact = try SceneTruth.markers(of: frame.scene).map { MarkerDetection(id: $0.id, corners: $0.corners) }
            let poses = try MarkerMapPose(map: map).pose(of: exact, calibration: clip.camera)?.poses
            return Truth(pose: pose, exact: poses ?? MarkerPoses(chosen: pose, other: pose, chosenError: 0, otherError: 0), marker: nil)
        }
    }

    /// The report of the marker nearest the truth's centre, within half its side.
    static func nearest(_ markers: [DetectionReport.Marker], truth: SceneTruth.Marker) -> DetectionReport.Marker? {
        let centre = Point2(x: truth.corners.map(\.x).reduce(0, +) / 4, y: truth.corners.map(\.y).reduce(0, +) / 4)
        return markers.filter { MarkerDetection(id: $0.id, quad: $0.quad).center.distance(to: centre) < max(truth.sidePixels / 2, 3) }.first
    }

    /// OpenCV's pose as its users get it: of a marker, `detectMarkers` then `solvePnP(SOLVEPNP_IPPE_SQUARE)` on
    /// its corners; of a ChArUco board, `detectMarkers`, `interpolateCornersCharuco` (with the camera) and
    /// `solvePnP` on the board's corners found (what `estimatePoseCharucoBoard` does), from 4 corners.
    static func openCVPose(in image: GrayImage, truth: Truth, clip: PoseClip) throws -> MarkerPose? {
        let c = clip.camera
        switch clip.subject {
        case .marker:
            guard let marker = truth.marker else { return nil }
            let found = try OpenCVArucoDetector().detect(in: image).filter { $0.id == marker.id }
            let centre = Point2(x: marker.corners.map(\.x).reduce(0, +) / 4, y: marker.corners.map(\.y).reduce(0, +) / 4)
            guard let detection = found.first(where: { $0.center.distance(to: centre) < max(marker.sidePixels / 2, 3) }) else { return nil }
            let corners = detection.corners.flatMap { [$0.x, $0.y] }
            var rvec = [0.0, 0.0, 0.0], tvec = [0.0, 0.0, 0.0]
            try Bridge.check(cvb_solve_pnp_square(corners, PoseClip.side, c.cameraMatrix, c.distortion, Int32(c.distortion.count), c.bridgeModel,
                                                  &rvec, &tvec))
            return MarkerPose(rvec: rvec, tvec: tvec)
        case .charuco(let board):
            let corners = try OpenCVCharucoDetector(board: board, camera: c).detect(in: image)
            guard corners.count >= 4 else { return nil }
            let points = board.corners
            let object = corners.flatMap { [points[$0.id].x / 1000, points[$0.id].y / 1000, 0.0] }, found = corners.flatMap { [$0.point.x, $0.point.y] }
            return solvePnP(object: object, image: found, camera: c)
        case .sheet(let map), .cube(let map):
            // solvePnP on the corners of every marker of the sheet or cube found.
            let metres = map.millimetresPerUnit / 1000
            var object: [Double] = [], found: [Double] = []
            for marker in try OpenCVArucoDetector(dictionary: try map.markerDictionary()).detect(in: image) {
                guard let corners = map.corners(of: marker.id) else { continue }
                object += corners.flatMap { [$0.x * metres, $0.y * metres, $0.z * metres] }
                found += marker.corners.flatMap { [$0.x, $0.y] }
            }
            guard object.count >= 12 else { return nil }
            return solvePnP(object: object, image: found, camera: c)
        }
    }

    /// cv::solvePnP's default pose of points (x y z each, metres) seen at `image` (x y each), or nil where
    /// OpenCV finds none (points on one line: OpenCV refuses them, and so does its user).
    static func solvePnP(object: [Double], image: [Double], camera c: CameraCalibration) -> MarkerPose? {
        var pose = [Double](repeating: 0, count: 7)
        let status = cvb_solve_pnp_iterative(object, image, Int32(object.count / 3), c.cameraMatrix, c.distortion, Int32(c.distortion.count),
                                             c.bridgeModel, &pose)
        guard (try? Bridge.check(status)) != nil else { return nil }
        return MarkerPose(rvec: Array(pose[0..<3]), tvec: Array(pose[3..<6]))
    }

    /// A pose's errors against the truth, and its side.
    static func score(_ pose: MarkerPose?, sigma: PoseSigma? = nil, truth: Truth) -> Outcome {
        guard let pose else { return Outcome(found: false) }
        let true_ = truth.pose, exact = truth.exact
        var outcome = Outcome(found: true)
        outcome.rotationError = pose.degrees(from: true_)
        let d = pose.translation - true_.translation, length = (d * d).sum().squareRoot()
        outcome.translationError = 100 * length / (true_.translation * true_.translation).sum().squareRoot()
        if let sigma, sigma.rotation > 0, sigma.translation > 0 {
            outcome.rotationZ = outcome.rotationError! / sigma.rotation
            outcome.translationZ = length / sigma.translation
        }
        // The truth's mirror: of its exact corners' two poses, the one farther from the truth.
        let mirror = exact.chosen.degrees(from: true_) < exact.other.degrees(from: true_) ? exact.other : exact.chosen
        if mirror.degrees(from: true_) >= distinctDegrees {
            outcome.side = pose.degrees(from: true_) <= pose.degrees(from: mirror) ? 1 : -1
        }
        return outcome
    }
}

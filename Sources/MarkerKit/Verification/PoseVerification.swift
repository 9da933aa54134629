import CVBridge
import Foundation

/// Runs a pose clip (`PoseClip`) through MarkerKit (`detect`'s and `track`'s detector and poses, each
/// segment a stream: poses chosen with `PoseHistory`) and through OpenCV 4.6 as its users estimate a
/// marker's pose frame by frame (`detectMarkers`, then `solvePnP` with `SOLVEPNP_IPPE_SQUARE`), and
/// scores every frame against the truth.
///
/// A flip is a jump between the marker's two poses: the truth's own two IPPE poses (from its exact
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
    /// history changes); OpenCV.
    public static let contenders = ["markerkit", "mk-frame", "opencv"]

    public let clip: PoseClip

    public init(clip: PoseClip) {
        self.clip = clip
    }

    /// Renders the frames on `jobs` threads (OpenCV's per-frame poses there too); MarkerKit's come on
    /// the calling thread in frame order, as a stream's do. `progress` may throw to stop the run.
    public func run(jobs: Int = 1, progress: (Int, Int) throws -> Void = { _, _ in }) throws -> [Trial] {
        try clip.checkSizes()
        let clip = clip, total = clip.frameCount
        let estimator = MarkerPoseEstimator(calibration: clip.camera, side: PoseClip.side)
        var taken = 0
        typealias Work = (renderer: SceneRenderer, index: Int)
        var trials: [Trial] = []
        var analyzer = Self.analyzer(estimator)
        var lastSide: [String: Int] = [:]
        try OrderedJobs.run(jobs: jobs, makeState: { () -> Work in (SceneRenderer(), 0) }, take: { (work: inout Work) in
            guard taken < total else { return false }
            work.index = taken
            taken += 1
            return true
        }, work: { (work: inout Work) -> (PoseClip.Frame, GrayImage, SceneTruth.Marker, MarkerPoses, Outcome) in
            let frame = try clip.frame(work.index)
            let image = try work.renderer.render(frame.scene)
            guard let truth = try SceneTruth.markers(of: frame.scene).first else {
                throw MarkerKitError.badInput("frame \(work.index) of the pose clip shows no marker")
            }
            let exact = try estimator.poses(of: MarkerDetection(id: truth.id, corners: truth.corners))
            let opencv = try Self.openCVPose(in: image, truth: truth, camera: clip.camera)
            return (frame, image, truth, exact, try Self.score(opencv, truth: truth, exact: exact))
        }, deliver: { (frame, image, truth, exact, opencv) in
            if frame.segment != trials.last?.segment {
                analyzer = Self.analyzer(estimator)
                lastSide = [:]
            }
            let gray = MarkerKit.Frame(width: image.width, height: image.height, stride: image.width, format: .gray8, bytes: image.pixels)
            let (result, _) = try analyzer.analyze(SourcedFrame(source: "clip", index: trials.count, frame: gray), annotate: false)
            let report = Self.nearest(result.markers.filter { $0.id == truth.id }, truth: truth)?.pose
            // The frame alone: the pose of the two that reprojects better.
            let alone = report.map { r in r.alternative.map { ($0.error < (r.error ?? 0)) ? MarkerPose(rotation: $0.rotation, translation: $0.translation) : r.pose } ?? r.pose }
            var outcomes = ["markerkit": try Self.score(report?.pose, truth: truth, exact: exact),
                            "mk-frame": try Self.score(alone, truth: truth, exact: exact), "opencv": opencv]
            for name in Self.contenders where outcomes[name]!.side != 0 {
                outcomes[name]!.flip = lastSide[name].map { $0 != outcomes[name]!.side } ?? false
                lastSide[name] = outcomes[name]!.side
            }
            trials.append(Trial(index: trials.count, segment: frame.segment, sizePixels: frame.sizePixels, tiltDegrees: frame.tiltDegrees,
                                still: frame.still, outcomes: outcomes))
            try progress(trials.count, total)
        })
        return trials
    }

    /// A fresh stream: MarkerKit's analyzer with poses and their history.
    static func analyzer(_ estimator: MarkerPoseEstimator) -> MarkerFrameAnalyzer {
        var analyzer = MarkerFrameAnalyzer(poseEstimator: estimator)
        analyzer.poseHistory = PoseHistory(ids: analyzer.detector.dictionary.count)
        return analyzer
    }

    /// The report of the marker nearest the truth's centre, within half its side.
    static func nearest(_ markers: [DetectionReport.Marker], truth: SceneTruth.Marker) -> DetectionReport.Marker? {
        let centre = Point2(x: truth.corners.map(\.x).reduce(0, +) / 4, y: truth.corners.map(\.y).reduce(0, +) / 4)
        return markers.filter { MarkerDetection(id: $0.id, quad: $0.quad).center.distance(to: centre) < max(truth.sidePixels / 2, 3) }.first
    }

    /// OpenCV's pose of the marker: `detectMarkers`, then `solvePnP(SOLVEPNP_IPPE_SQUARE)` on its corners.
    static func openCVPose(in image: GrayImage, truth: SceneTruth.Marker, camera c: CameraCalibration) throws -> MarkerPose? {
        let found = try OpenCVArucoDetector().detect(in: image).filter { $0.id == truth.id }
        let centre = Point2(x: truth.corners.map(\.x).reduce(0, +) / 4, y: truth.corners.map(\.y).reduce(0, +) / 4)
        guard let marker = found.first(where: { $0.center.distance(to: centre) < max(truth.sidePixels / 2, 3) }) else { return nil }
        let corners = marker.corners.flatMap { [$0.x, $0.y] }
        var rvec = [0.0, 0.0, 0.0], tvec = [0.0, 0.0, 0.0]
        try Bridge.check(cvb_solve_pnp_square(corners, PoseClip.side, c.cameraMatrix, c.distortion, Int32(c.distortion.count), c.bridgeModel,
                                              &rvec, &tvec))
        return MarkerPose(rvec: rvec, tvec: tvec)
    }

    /// A pose's errors against the truth, and its side.
    static func score(_ pose: MarkerPose?, truth: SceneTruth.Marker, exact: MarkerPoses) throws -> Outcome {
        guard let pose else { return Outcome(found: false) }
        let true_ = MarkerPose(rvec: truth.pose.rvec, tvec: truth.pose.tvec)
        var outcome = Outcome(found: true)
        outcome.rotationError = pose.degrees(from: true_)
        let d = pose.translation - true_.translation
        outcome.translationError = 100 * (d * d).sum().squareRoot() / (true_.translation * true_.translation).sum().squareRoot()
        // The truth's mirror: of its exact corners' two poses, the one farther from the truth.
        let mirror = exact.chosen.degrees(from: true_) < exact.other.degrees(from: true_) ? exact.other : exact.chosen
        if mirror.degrees(from: true_) >= distinctDegrees {
            outcome.side = pose.degrees(from: true_) <= pose.degrees(from: mirror) ? 1 : -1
        }
        return outcome
    }
}

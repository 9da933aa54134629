import Foundation

/// Markers followed through a camera's stream or a video, frame after frame: the loop of `markerkit track`
/// (each frame through a `MarkerFrameAnalyzer`), the recording of the annotated picture, and the run's
/// statistics. The per-frame step (`track(_:annotate:)`) is also what `markerkit serve` runs on a stream
/// without a board. A stream of one size allocates nothing per frame (the frame, the analyzer's buffers
/// and the result's list are kept and reused).
public struct TrackingSession {
    public var analyzer: MarkerFrameAnalyzer
    /// Where the annotated picture is recorded, if anywhere.
    public let recording: Recording?
    /// Markers reported over every frame, and the IDs among them.
    public private(set) var detections = 0
    public private(set) var ids = Set<Int>()
    /// Why a camera's stream ended before it was stopped (unplugged), nil otherwise.
    public private(set) var lost: String?
    private var writer: VideoFileWriter?
    private var sourced = SourcedFrame.empty

    /// A video file the annotated picture is written to: `.avi` (MJPG) or `.mp4` (mp4v).
    public struct Recording: Sendable {
        public let url: URL
        public let framesPerSecond: Double

        /// Refused before any frame when the extension is not one of the two, or the file exists and
        /// `force` is not set.
        public init(url: URL, framesPerSecond: Double, force: Bool) throws {
            try OutputFiles.checkDestination(url, force: force)
            guard ["avi", "mp4"].contains(url.pathExtension.lowercased()) else {
                throw MarkerKitError.cannotWrite("cannot record to '\(url.relativePath)': use .avi or .mp4")
            }
            self.url = url
            self.framesPerSecond = framesPerSecond
        }

        var fourcc: String { url.pathExtension.lowercased() == "mp4" ? "mp4v" : "MJPG" }
    }

    /// Poses, when the analyzer gives them, are chosen with the stream's history (`PoseHistory`).
    public init(analyzer: MarkerFrameAnalyzer, recording: Recording? = nil) {
        self.analyzer = analyzer
        if analyzer.poseEstimator != nil, analyzer.poseHistory == nil {
            self.analyzer.poseHistory = PoseHistory(ids: analyzer.detector.dictionary.count)
        }
        self.recording = recording
    }

    /// Every frame of `feed` until it ends, its camera is lost (`lost` says why), `shouldStop` says so or
    /// `onFrame` returns false. `onFrame` gets each frame's result, the annotated picture when `annotate`
    /// (or a recording) asks for it, and the frame as read. The recording is finished at the end (a run
    /// that throws leaves none: the temporary file goes).
    public mutating func run(_ feed: FrameFeed, annotate: Bool, shouldStop: () -> Bool,
                             onFrame: (DetectionReport.FrameResult, Frame?, SourcedFrame) throws -> Bool) throws {
        while !shouldStop(), try next(feed) {
            let (result, annotated) = try track(sourced, annotate: annotate || recording != nil)
            try record(annotated)
            guard try onFrame(result, annotated, sourced) else { break }
        }
        try writer?.finish()
    }

    /// One frame: its markers (and poses), counted in the statistics; the annotated picture when asked.
    public mutating func track(_ frame: SourcedFrame, annotate: Bool) throws -> (DetectionReport.FrameResult, Frame?) {
        let (result, annotated) = try analyzer.analyze(frame, annotate: annotate)
        detections += result.markers.count
        for marker in result.markers { ids.insert(marker.id) }
        return (result, annotated)
    }

    /// The recorded file, once something was recorded.
    public var recorded: URL? { writer?.url }

    /// The run in one line: "120 frames, 240 detections, IDs 3 7, 29.8 fps, 2 dropped".
    public func summary(_ feed: FrameFeed) -> String {
        let bad = feed.badFrames > 0 ? ", \(feed.badFrames) bad skipped" : ""
        let idList = ids.isEmpty ? "" : ", IDs " + ids.sorted().map(String.init).joined(separator: " ")
        return String(format: "%@, %@%@, %.1f fps, %d dropped%@", counted(feed.processed, "frame"), counted(detections, "detection"),
                      idList, feed.framesPerSecond, feed.dropped, bad)
    }

    /// The next frame; a camera lost on the way ends the stream like its end (so what was written is
    /// finished and kept), with the reason in `lost`.
    private mutating func next(_ feed: FrameFeed) throws -> Bool {
        do {
            return try feed.next(into: &sourced)
        } catch MarkerKitError.cameraLost(let message) {
            lost = message
            return false
        }
    }

    private mutating func record(_ annotated: Frame?) throws {
        guard let recording, let annotated else { return }
        if writer == nil {
            writer = try VideoFileWriter(url: recording.url, width: annotated.width, height: annotated.height,
                                         framesPerSecond: recording.framesPerSecond, fourcc: recording.fourcc)
        }
        try writer?.write(annotated)
    }
}

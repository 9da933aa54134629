import Foundation

/// Runs the detector over inputs (image files and video files) frame by frame: poses when a pose
/// estimator is set, annotated output when a folder is set, each frame's result handed to the caller as
/// soon as it is known. With more than one job the work is spread over threads (`OrderedJobs`): the
/// images of consecutive image inputs are read and detected several at a time, and a video's frames
/// are detected on several threads while one thread decodes them in order; results, annotated files and
/// summaries still come in input order, the same as with one job.
public struct DetectionJob {
    public var detector: MarkerDetector
    public var poseEstimator: MarkerPoseEstimator?
    /// A ChArUco board to find the corners of, near its markers.
    public var board: CharucoDetector?
    /// A marker map to find the pose of (with a pose estimator).
    public var markerMap: MarkerMapPose?
    /// A checkerboard to find the corners of (and with a pose estimator its pose).
    public var checkerboard: CheckerboardPose?
    /// ChArUco diamonds looked for among the markers, and their poses (`MarkerFrameAnalyzer.diamonds`).
    public var diamonds: DiamondDetector?
    public var diamondPoses: MarkerPoseEstimator?
    /// Whether frames get a target pose: a marker map's, or with a calibration a board's.
    private var posesTarget: Bool { markerMap != nil || (poseEstimator != nil && (board != nil || checkerboard != nil)) }
    /// In a video: poses smoothed over the frames before (`PoseSmoother`, `--smooth`).
    public var smooth = false
    public var annotationDirectory: URL?
    private var usedNames = Set<String>()
    /// Per-stage timings, summed over every frame and thread, when asked for.
    public private(set) var timings: StageTimings?

    public init(detector: MarkerDetector = MarkerDetector(), poseEstimator: MarkerPoseEstimator? = nil,
                annotationDirectory: URL? = nil, collectTimings: Bool = false) {
        self.detector = detector
        self.poseEstimator = poseEstimator
        self.annotationDirectory = annotationDirectory
        timings = collectTimings ? StageTimings() : nil
    }

    public struct Summary: Sendable {
        public let source: String
        public let frames: Int
        public let detections: Int
        public let ids: [Int]
        /// Where the annotated image or video went.
        public let annotated: URL?
        /// Board corners found, summed over the frames, when a board was looked for.
        public var boardCorners: Int? = nil
        /// Frames in which the target's pose was found (a marker map's, or with a calibration a board's), when there is one.
        public var mapPoses: Int? = nil
        /// With diamonds looked for: the diamonds found (their IDs), each once, in the order first found.
        public var diamonds: [[Int]]? = nil
    }

    /// One input on the calling thread.
    public mutating func run(_ item: InputCatalog.Item,
                             onFrame: (DetectionReport.FrameResult) throws -> Void) throws -> Summary {
        var summary: Summary?
        try run([item], jobs: 1, onFrame: onFrame) { _, outcome in summary = try outcome.get() }
        return summary!
    }

    /// Every input in order with `jobs` threads. `onFrame` gets each frame's result and `onItem` each
    /// input's summary or the error that stopped it, on the calling thread, in input order, with the
    /// same calls for any number of jobs (one job runs everything on the calling thread). An error
    /// `onItem` throws ends the run.
    public mutating func run(_ items: [InputCatalog.Item], jobs: Int,
                             onFrame: (DetectionReport.FrameResult) throws -> Void,
                             onItem: (InputCatalog.Item, Result<Summary, any Error>) throws -> Void) throws {
        var start = items.startIndex
        while start < items.endIndex {
            if case .video(let url) = items[start] {
                let outcome: Result<Summary, any Error>
                do { outcome = .success(try runVideo(url, jobs: jobs, onFrame: onFrame)) } catch { outcome = .failure(error) }
                try onItem(items[start], outcome)
                start += 1
                continue
            }
            var end = start
            var images: [URL] = []
            while end < items.endIndex, case .image(let url) = items[end] {
                images.append(url)
                end += 1
            }
            try runImages(images, jobs: jobs, onFrame: onFrame) { index, outcome in try onItem(items[start + index], outcome) }
            start = end
        }
    }

    /// A detecting thread's own state: its analyzer (with its `DetectorWorkspace`) and the frame it
    /// reads into, used by that thread alone.
    private struct Worker {
        var analyzer: MarkerFrameAnalyzer
        var sourced = SourcedFrame.empty
        var image: URL?

        /// The frame read last through the analyzer; the stage timings of this frame alone.
        mutating func analyze(annotate: Bool) throws -> (DetectionReport.FrameResult, Frame?, StageTimings?) {
            let (analyzed, annotated) = try analyzer.analyze(sourced, annotate: annotate)
            var result = analyzed
            // The analyzer refills its list of markers in place in the next frame once the result lets go of
            // it; this result goes to the thread that writes the output, so it gets a list of its own (with
            // the list shared, ThreadSanitizer saw this thread's next refill race that thread's reading).
            result.markers = result.markers.map { $0 }
            let timings = analyzer.timings
            if timings != nil { analyzer.timings = StageTimings() }
            return (result, annotate ? annotated ?? sourced.frame : nil, timings)
        }
    }

    /// `history`: frames come in order, and an ambiguous marker's pose is chosen by the frames before.
    private func makeWorker(history: Bool = false, jobs: Int = 1) -> () -> Worker {
        let detector = detector, poseEstimator = poseEstimator, timed = timings != nil, board = board, markerMap = markerMap, smooth = smooth,
            checkerboard = checkerboard, diamonds = diamonds, diamondPoses = diamondPoses
        return {
            var analyzer = MarkerFrameAnalyzer(poseEstimator: poseEstimator, collectTimings: timed)
            analyzer.detector = detector
            analyzer.board = board
            analyzer.checkerboard = checkerboard
            analyzer.markerMap = markerMap
            (analyzer.diamonds, analyzer.diamondPoses) = (diamonds, diamondPoses)
            if history, poseEstimator != nil { analyzer.poseHistory = PoseHistory(ids: detector.dictionary.count) }
            if history, smooth, poseEstimator != nil { analyzer.smoother = PoseSmoother(ids: detector.dictionary.count) }
            // Several frames at once fill the cores: each frame takes its share of the pool.
            analyzer.frameWorkers = WorkerPool.share(jobs: jobs)
            return Worker(analyzer: analyzer)
        }
    }

    /// Image files: each read, detected and (when annotating) encoded on a worker; results, files and
    /// summaries in order here. `onImage` gets each image's index in `urls` and its summary or error.
    private mutating func runImages(_ urls: [URL], jobs: Int, onFrame: (DetectionReport.FrameResult) throws -> Void,
                                    onImage: (Int, Result<Summary, any Error>) throws -> Void) throws {
        let annotate = annotationDirectory != nil
        var next = 0
        var index = 0
        try OrderedJobs.run(jobs: jobs, makeState: makeWorker(jobs: jobs), take: { worker in
            guard next < urls.count else { return false }
            worker.image = urls[next]
            next += 1
            return true
        }, work: { worker -> Result<(DetectionReport.FrameResult, Result<Data, any Error>?, StageTimings?), any Error> in
            Result {
                let url = worker.image!
                var source = ImageFileSource(files: [url])
                guard try source.next(into: &worker.sourced) else { throw MarkerKitError.badInput("cannot read image '\(url.path)'") }
                let (result, annotated, timings) = try worker.analyze(annotate: annotate)
                return (result, annotated.map { picture in Result { try picture.encoded(as: "png") } }, timings)
            }
        }, deliver: { analyzed in
            let url = urls[index]
            let outcome: Result<Summary, any Error>
            do {
                let (result, png, frameTimings) = try analyzed.get()
                if let frameTimings { timings?.add(frameTimings) }
                try onFrame(result)
                var annotated: URL?
                if let directory = annotationDirectory, let png {
                    let target = uniqueFile(in: directory, for: url, extension: "png")
                    var files = OutputFiles()
                    files.add(try png.get(), at: target)
                    try files.commit()
                    annotated = target
                }
                var summary = Summary(source: url.relativePath, frames: 1, detections: result.markers.count,
                                      ids: result.markers.map(\.id), annotated: annotated)
                summary.boardCorners = result.board?.corners.count
                summary.mapPoses = posesTarget ? (result.target == nil ? 0 : 1) : nil
                summary.diamonds = result.diamonds.map { Self.distinct($0.map(\.ids)) }
                outcome = .success(summary)
            } catch {
                outcome = .failure(error)
            }
            try onImage(index, outcome)
            index += 1
        })
    }

    /// A video: frames decoded in order (one worker at a time), detected on the workers, results and the
    /// annotated video in order here.
    private mutating func runVideo(_ url: URL, jobs: Int, onFrame: (DetectionReport.FrameResult) throws -> Void) throws -> Summary {
        let source = try VideoFileSource(url: url)
        let annotate = annotationDirectory != nil
        var writer: VideoFileWriter?
        var frames = 0, detections = 0, boardCorners = 0, mapPoses = 0
        var ids = Set<Int>()
        var diamondIDs: [[Int]] = []
        // Poses are chosen in frame order (PoseHistory), so a video with poses is detected by one worker.
        let inOrder = poseEstimator != nil
        try OrderedJobs.run(jobs: inOrder ? 1 : jobs, makeState: makeWorker(history: inOrder, jobs: inOrder ? 1 : jobs), take: { worker in
            try source.next(into: &worker.sourced)
        }, work: { worker in
            try worker.analyze(annotate: annotate)
        }, deliver: { result, frame, frameTimings in
            if let frameTimings { timings?.add(frameTimings) }
            try onFrame(result)
            if let directory = annotationDirectory, let frame {
                if writer == nil {
                    writer = try VideoFileWriter(url: uniqueFile(in: directory, for: url, extension: "avi"),
                                                 width: frame.width, height: frame.height,
                                                 framesPerSecond: source.framesPerSecond)
                }
                try writer?.write(frame)
            }
            frames += 1
            detections += result.markers.count
            boardCorners += result.board?.corners.count ?? 0
            if result.target != nil { mapPoses += 1 }
            ids.formUnion(result.markers.map(\.id))
            diamondIDs = Self.distinct(diamondIDs + (result.diamonds ?? []).map(\.ids))
        })
        guard frames > 0 else { throw MarkerKitError.badInput("cannot read video '\(url.path)': it has no frames OpenCV can decode") }
        try writer?.finish()
        var summary = Summary(source: url.relativePath, frames: frames, detections: detections, ids: ids.sorted(), annotated: writer?.url)
        summary.boardCorners = board == nil && checkerboard == nil ? nil : boardCorners
        summary.mapPoses = posesTarget ? mapPoses : nil
        summary.diamonds = diamonds == nil ? nil : diamondIDs
        return summary
    }

    /// Each ID list once, in the order first met.
    static func distinct(_ lists: [[Int]]) -> [[Int]] {
        var seen: [[Int]] = []
        for list in lists where !seen.contains(list) { seen.append(list) }
        return seen
    }

    /// `DIR/stem.ext`, or `DIR/stem-2.ext`, ... when an earlier input of this job took the name.
    private mutating func uniqueFile(in directory: URL, for input: URL, extension ext: String) -> URL {
        directory.appendingPathComponent(Self.uniqueName(for: input, extension: ext, used: &usedNames))
    }

    private static func uniqueName(for input: URL, extension ext: String, used: inout Set<String>) -> String {
        let stem = input.deletingPathExtension().lastPathComponent
        var name = "\(stem).\(ext)"
        var n = 2
        while used.contains(name) {
            name = "\(stem)-\(n).\(ext)"
            n += 1
        }
        used.insert(name)
        return name
    }

    /// Every name an annotation of `items` may be written under in the annotation folder (images as
    /// .png, videos as .avi), so that a caller can refuse to replace files before the run.
    public static func annotationNames(for items: [InputCatalog.Item]) -> [String] {
        var used = Set<String>()
        return items.map { item in
            switch item {
            case .image(let url): uniqueName(for: url, extension: "png", used: &used)
            case .video(let url): uniqueName(for: url, extension: "avi", used: &used)
            }
        }
    }
}

import Foundation

/// Runs the detector over one input (an image file or a video file) frame by frame: poses when a pose
/// estimator is set, annotated output when a folder is set, each frame's result handed to the caller as
/// soon as it is known.
public struct DetectionJob {
    public var detector: MarkerDetector
    public var poseEstimator: MarkerPoseEstimator?
    public var annotationDirectory: URL?
    private var analyzer: MarkerFrameAnalyzer
    private var usedNames = Set<String>()

    /// Per-stage timings, collected when asked for.
    public var timings: StageTimings? { analyzer.timings }

    public init(detector: MarkerDetector = MarkerDetector(), poseEstimator: MarkerPoseEstimator? = nil,
                annotationDirectory: URL? = nil, collectTimings: Bool = false) {
        self.detector = detector
        self.poseEstimator = poseEstimator
        self.annotationDirectory = annotationDirectory
        analyzer = MarkerFrameAnalyzer(collectTimings: collectTimings)
    }

    public struct Summary: Sendable {
        public let source: String
        public let frames: Int
        public let detections: Int
        public let ids: [Int]
        /// Where the annotated image or video went.
        public let annotated: URL?
    }

    public mutating func run(_ item: InputCatalog.Item,
                             onFrame: (DetectionReport.FrameResult) throws -> Void) throws -> Summary {
        switch item {
        case .image(let url):
            var source = ImageFileSource(files: [url])
            guard let sourced = try source.next() else { throw MarkerKitError.badInput("cannot read image '\(url.path)'") }
            var frame = sourced.frame
            let result = try process(sourced, annotating: &frame)
            try onFrame(result)
            var annotated: URL?
            if let directory = annotationDirectory {
                let target = uniqueFile(in: directory, for: url, extension: "png")
                var files = OutputFiles()
                files.add(try frame.encoded(as: "png"), at: target)
                try files.commit()
                annotated = target
            }
            return Summary(source: url.relativePath, frames: 1, detections: result.markers.count,
                           ids: result.markers.map(\.id), annotated: annotated)
        case .video(let url):
            let source = try VideoFileSource(url: url)
            var writer: VideoFileWriter?
            var frames = 0, detections = 0
            var ids = Set<Int>()
            var sourced = SourcedFrame.empty
            while try source.next(into: &sourced) {
                var frame = sourced.frame
                let result = try process(sourced, annotating: &frame)
                try onFrame(result)
                if let directory = annotationDirectory {
                    if writer == nil {
                        writer = try VideoFileWriter(url: uniqueFile(in: directory, for: url, extension: "avi"),
                                                     width: frame.width, height: frame.height,
                                                     framesPerSecond: source.framesPerSecond)
                    }
                    try writer?.write(frame)
                }
                frames += 1
                detections += result.markers.count
                ids.formUnion(result.markers.map(\.id))
            }
            guard frames > 0 else { throw MarkerKitError.badInput("cannot read video '\(url.path)': it has no frames OpenCV can decode") }
            try writer?.finish()
            return Summary(source: url.relativePath, frames: frames, detections: detections, ids: ids.sorted(), annotated: writer?.url)
        }
    }

    private mutating func process(_ sourced: SourcedFrame, annotating frame: inout Frame) throws -> DetectionReport.FrameResult {
        analyzer.poseEstimator = poseEstimator
        analyzer.detector = detector
        let (result, annotated) = try analyzer.analyze(sourced, annotate: annotationDirectory != nil)
        if let annotated { frame = annotated }
        return result
    }

    /// `DIR/stem.ext`, or `DIR/stem-2.ext`, ... when an earlier input of this job took the name.
    private mutating func uniqueFile(in directory: URL, for input: URL, extension ext: String) -> URL {
        let stem = input.deletingPathExtension().lastPathComponent
        var name = "\(stem).\(ext)"
        var n = 2
        while usedNames.contains(name) {
            name = "\(stem)-\(n).\(ext)"
            n += 1
        }
        usedNames.insert(name)
        return directory.appendingPathComponent(name)
    }
}

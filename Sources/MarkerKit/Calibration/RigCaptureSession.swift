import Foundation

/// A capture from several cameras at once for a rig: frames matched across the cameras by when they were
/// taken (the drivers' timestamps for cameras, the timeline for video files), a set kept only when the
/// frames are within `maxGap` of each other, the first camera's capture assistant keeps its view (board
/// still, sharp, new) and every other camera finds the board sharp in its own frame. Each camera's views
/// go into its own folder, `NAME/view_000.png` ... with its `capture.json`, named alike across folders so
/// that `calibrate --rig` pairs them; `rig.json` beside the folders lists each set with its frames' times
/// and gap.
public struct RigCaptureSession {
    /// What `rig.json` holds.
    public struct Log: Codable, Sendable {
        public struct Set: Codable, Sendable {
            public let file: String
            /// Each camera's frame time (s) and the largest difference between them.
            public let times: [Double]
            public let gap: Double
        }

        public var format = "markerkit-rig-capture"
        public var formatVersion = 1
        public var cameras: [String]
        public var devices: [String]
        /// The largest gap a set may have (s).
        public var maxGap: Double
        public var sets: [Set] = []
    }

    /// One matched set's state, for the caller's status line.
    public struct Update {
        public let frames: [SourcedFrame]
        public let gap: Double
        /// Each camera's verdict (the others' only when the first kept its view).
        public let verdicts: [CaptureAssistant.Verdict?]
        public let saving: Bool
        public let saved: Int
        public let count: Int
        /// Each camera's coverage (x, y, size, skew; with a ChArUco board the image corners too).
        public let coverage: [[Double]]
        /// Each camera's board corners in its frame (nil where the board was not found).
        public let corners: [[Point2]?]
        /// Frames passed over so far because the cameras' frames were further apart than the gap allows.
        public let unmatched: Int
        /// Each camera's place relative to the first as sure as a rig from the sets kept so far makes it
        /// (from 3 sets on).
        public let pairs: [RigPairState]
    }

    public struct Outcome {
        /// Each camera's saved views.
        public let saved: [[URL]]
        public let log: Log
        /// Frames passed over because the cameras' frames were further apart than `maxGap`, and the
        /// largest gap among the sets kept.
        public let unmatched: Int
        public let largestGap: Double
    }

    public let directory: URL
    public let count: Int
    public private(set) var log: Log
    private var cameraLogs: [CaptureLog]
    private var assistants: [CaptureAssistant]
    private let target: CalibrationTarget
    /// Whether every camera's board is found in every matched set, to be shown (a page's live pictures);
    /// otherwise the other cameras' only when the first keeps its view.
    public var findsEveryBoard = false
    /// The pairs' state after the last set kept.
    public private(set) var pairs: [RigPairState] = []

    public init(directory: URL, names: [String], devices: [String], target: CalibrationTarget, count: Int, maxGap: Double) throws {
        guard names.count >= 2, names.count == devices.count, Set(names).count == names.count else {
            throw MarkerKitError.invalidArgument("a rig capture takes 2 or more cameras with different names")
        }
        try InputRange.check(count, in: CaptureSession.counts, "a capture of")
        guard maxGap.isFinite, maxGap > 0, maxGap <= 1 else { throw MarkerKitError.invalidArgument("the largest gap between a set's frames must be above 0 and at most 1 s") }
        self.directory = directory
        self.count = count
        self.target = target
        log = Log(cameras: names, devices: devices, maxGap: maxGap)
        cameraLogs = devices.map { CaptureLog(source: $0, target: target) }
        var settings = CaptureAssistant.Settings(target: target)
        settings.count = count
        assistants = names.map { _ in CaptureAssistant(settings: settings) }
    }

    /// Every file a run may write: `rig.json`, and each camera's log and `count` views.
    public var fileNames: [String] { Self.fileNames(names: log.cameras, count: count) }

    /// The same before a session is made (its cameras' feeds opened).
    public static func fileNames(names: [String], count: Int) -> [String] {
        ["rig.json"] + names.flatMap { name in ["\(name)/capture.json"] + (0..<count).map { "\(name)/" + CaptureSession.viewName($0) } }
    }

    public func checkDestination(force: Bool) throws {
        try OutputFiles.checkDirectoryDestination(directory, names: fileNames, force: force)
    }

    /// Runs until `count` sets are saved, a feed ends, `shouldStop` answers true, or the first camera's
    /// coverage is complete. The oldest frame is replaced by its camera's next until the frames are within
    /// `maxGap` of each other. When `request` answers true (a user's "keep this set"), the next matched
    /// frames in which every camera finds the board sharp are kept without waiting for them to be still and new.
    public mutating func run(feeds: [FrameFeed], shouldStop: () -> Bool = { false }, request: () -> Bool = { false },
                             onUpdate: (Update) throws -> Void = { _ in }) throws -> Outcome {
        guard feeds.count == log.cameras.count else { throw MarkerKitError.invalidArgument("one feed per camera") }
        var frames = feeds.map { _ in SourcedFrame.empty }
        var saved = [[URL]](repeating: [], count: feeds.count)
        var unmatched = 0, largest = 0.0, requested = false
        for c in feeds.indices { guard try feeds[c].next(into: &frames[c]) else { return outcome(saved, unmatched, largest) } }
        while !shouldStop(), saved[0].count < count {
            let instants = frames.map(\.instant)
            let oldest = instants.indices.min { instants[$0] < instants[$1] }!, gap = instants.max()! - instants[oldest]
            guard gap <= log.maxGap else {
                unmatched += 1
                guard try feeds[oldest].next(into: &frames[oldest]) else { break }
                continue
            }
            requested = requested || request()
            var verdicts: [CaptureAssistant.Verdict?] = [try assistants[0].consider(frames[0], force: requested)]
            var corners: [[Point2]?] = [assistants[0].lastCorners]
            var keep = verdicts[0] == .kept
            for c in 1..<feeds.count {
                // The others' boards need only be found and sharp: the first camera's gates hold the set still and new.
                // Until then their boards are only found, to be shown.
                let verdict: CaptureAssistant.Verdict? = keep ? try assistants[c].consider(frames[c], force: true) : nil
                verdicts.append(verdict)
                corners.append(verdict != nil ? assistants[c].lastCorners : findsEveryBoard ? try assistants[c].corners(in: frames[c]) : nil)
                keep = keep && verdict == .kept
            }
            if !keep {
                for c in feeds.indices where verdicts[c] == .kept { assistants[c].discardLast() }
            }
            if keep {
                requested = false
                pairs = RigPairState.measure(assistants, names: log.cameras, target: target) ?? pairs
            }
            try onUpdate(Update(frames: frames, gap: gap, verdicts: verdicts, saving: keep, saved: saved[0].count, count: count,
                                coverage: assistants.map(\.coverage), corners: corners,
                                unmatched: unmatched, pairs: pairs))
            if keep {
                let urls = try save(frames, gap: gap, cameras: feeds.map(\.camera))
                for c in feeds.indices { saved[c].append(urls[c]) }
                largest = max(largest, gap)
            }
            if assistants[0].isComplete { break }
            var more = true
            for c in feeds.indices where more { more = try feeds[c].next(into: &frames[c]) }
            guard more else { break }
        }
        return outcome(saved, unmatched, largest)
    }

    private func outcome(_ saved: [[URL]], _ unmatched: Int, _ largest: Double) -> Outcome {
        Outcome(saved: saved, log: log, unmatched: unmatched, largestGap: largest)
    }

    /// Writes one set: every camera's view and log, and `rig.json`, all or none.
    private mutating func save(_ frames: [SourcedFrame], gap: Double, cameras: [V4L2Camera?]) throws -> [URL] {
        let name = CaptureSession.viewName(log.sets.count)
        var files = OutputFiles(), urls: [URL] = [], logs = cameraLogs
        for (c, camera) in log.cameras.enumerated() {
            let folder = directory.appendingPathComponent(camera)
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let url = folder.appendingPathComponent(name)
            files.add(try frames[c].frame.encoded(as: "png"), at: url)
            urls.append(url)
            let kept = assistants[c].kept.last
            let state = cameras[c].map { CameraState(camera: $0) }
            logs[c].images.append(CaptureLog.Entry(file: name, time: frames[c].time, parameters: kept?.parameters, sharpness: kept?.sharpness, focus: state?.focus))
            logs[c].camera = state
            files.add(try logs[c].encoded(), at: folder.appendingPathComponent("capture.json"))
        }
        var next = log
        next.sets.append(Log.Set(file: name, times: frames.map(\.instant), gap: gap))
        files.add(try JSONFile.encode(next), at: directory.appendingPathComponent("rig.json"))
        try files.commit()
        (log, cameraLogs) = (next, logs)
        return urls
    }
}

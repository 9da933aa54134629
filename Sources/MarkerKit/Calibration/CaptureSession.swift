import Foundation

/// A capture run: frames from a feed saved into a folder as `view_000.png`, `view_001.png`, ... with
/// `capture.json` (the log `CalibrationJob` reads) rewritten beside them after every save, so that a run
/// stopped at any point leaves a consistent folder. A frame is saved when the capture assistant keeps
/// it (a board found, still, sharp and new), every so many seconds, or when the caller asks.
///
/// Progress goes to the caller through `onUpdate`, once a frame, after the frame's save decision and
/// before it is saved: a status line, a preview, a key press turned into a stop.
public struct CaptureSession {
    /// What decides that a frame is saved.
    public enum Trigger: Sendable, Equatable {
        /// The capture assistant's gates (needs a board); the run also ends when its coverage is complete.
        case assistant
        /// The first frame, then the first at least this many seconds of frame time after the last saved.
        case every(Double)
        /// Whenever the caller's `request` answers true (a key press).
        case onRequest
    }

    /// One frame's state, for the caller's status line and preview.
    public struct Update {
        public let frame: SourcedFrame
        /// Whether this frame is about to be saved.
        public let saving: Bool
        /// Frames saved before this one.
        public let saved: Int
        public let count: Int
        /// With the assistant: its verdict on this frame, its coverage (x, y, size, skew; 0-1 each), the
        /// board corners it found.
        public let verdict: CaptureAssistant.Verdict?
        public let coverage: [Double]?
        public let corners: [Point2]?
        /// With the assistant, from 3 kept views: where a calibration from them is least sure.
        public var uncertainty: CaptureAssistant.UncertaintyState? = nil
        /// With the assistant, of a frame about to be saved: its sharpness (the gate is `Settings.minSharpness`).
        public var sharpness: Double? = nil
    }

    /// What a run saved.
    public struct Outcome {
        public let saved: [URL]
        public let log: CaptureLog
        /// With the assistant: where a calibration from the saved views is least sure.
        public var uncertainty: CaptureAssistant.UncertaintyState? = nil
    }

    public let directory: URL
    public let count: Int
    public let trigger: Trigger
    public private(set) var log: CaptureLog
    private var assistant: CaptureAssistant?

    /// `source` names the frames' origin in the log; `board`, when given, is recorded in it.
    public init(directory: URL, source: String, board: Checkerboard?, count: Int, trigger: Trigger) throws {
        try self.init(directory: directory, source: source, target: board.map { .checkerboard($0) }, count: count, trigger: trigger)
    }

    /// How many frames or views one capture may save.
    public static let counts = 1...10_000
    /// Seconds between saved frames: up to a day.
    public static let intervals = 0.0...86_400
    /// Projection uncertainties (px) a capture may be asked to reach before it stops.
    public static let sigmaTargets = 0.001...100.0

    /// `sigma` when it is a target a capture can stop at, else the refusal naming the range.
    public static func checkedSigmaTarget(_ sigma: Double) throws -> Double {
        guard sigmaTargets.contains(sigma) else {
            throw MarkerKitError.invalidArgument("a target of \(sigma) px is outside 0.001-100 px")
        }
        return sigma
    }

    /// The same with a board of either kind.
    public init(directory: URL, source: String, target board: CalibrationTarget?, count: Int, trigger: Trigger, untilSigma: Double? = nil) throws {
        try InputRange.check(count, in: Self.counts, "a capture of")
        if trigger == .assistant && board == nil { throw MarkerKitError.invalidArgument("the capture assistant needs a board") }
        if case .every(let seconds) = trigger { try InputRange.check(seconds, in: Self.intervals, "a capture interval of") }
        if let untilSigma { _ = try Self.checkedSigmaTarget(untilSigma) }
        self.directory = directory
        self.count = count
        self.trigger = trigger
        log = CaptureLog(source: source, target: board)
        assistant = board.map { board in
            var settings = CaptureAssistant.Settings(target: board)
            settings.count = count
            settings.untilSigma = untilSigma
            return CaptureAssistant(settings: settings)
        }
    }

    /// The file a view is saved in.
    public static func viewName(_ index: Int) -> String { String(format: "view_%03d.png", index) }

    /// Every file a run may write: the log and `count` views.
    public var fileNames: [String] { ["capture.json"] + (0..<count).map(Self.viewName) }

    /// Refuses, before any frame is read, a folder that holds a file this run would replace (unless
    /// `force`), with the rule of `OutputFiles.checkDestination`.
    public func checkDestination(force: Bool) throws {
        try OutputFiles.checkDirectoryDestination(directory, names: fileNames, force: force)
    }

    /// Runs until `count` frames are saved, the feed ends, `shouldStop` answers true, or (with the
    /// assistant) the coverage is complete (with `untilSigma`: the uncertainty is below it). `request` is
    /// asked once a frame: with `.onRequest` it saves the frame, with `.assistant` it keeps the frame
    /// when the board is found in it and sharp, still or new or not.
    public mutating func run(feed: FrameFeed, shouldStop: () -> Bool = { false }, request: () -> Bool = { false },
                             onUpdate: (Update) throws -> Void = { _ in }) throws -> Outcome {
        var lastSaved: Double?
        var saved: [URL] = []
        var sourced = SourcedFrame.empty
        while !shouldStop(), saved.count < count, try feed.next(into: &sourced) {
            var save = false
            var parameters: CaptureAssistant.ViewParameters?
            var sharpness: Double?
            var verdict: CaptureAssistant.Verdict?
            switch trigger {
            case .assistant:
                verdict = try assistant!.consider(sourced, force: request())
                if verdict == .kept, let view = assistant!.kept.last {
                    save = true
                    parameters = view.parameters
                    sharpness = view.sharpness
                }
            case .every(let seconds):
                save = lastSaved.map { sourced.time - $0 >= seconds } ?? true
            case .onRequest:
                save = request()
            }
            var update = Update(frame: sourced, saving: save, saved: saved.count, count: count, verdict: verdict,
                                coverage: trigger == .assistant ? assistant?.coverage : nil,
                                corners: trigger == .assistant ? assistant?.lastCorners : nil)
            update.uncertainty = assistant?.uncertainty
            update.sharpness = sharpness
            try onUpdate(update)
            let complete = trigger == .assistant && assistant!.isComplete
            if complete && !save { break }
            guard save else { continue }
            lastSaved = sourced.time
            saved.append(try self.save(sourced, parameters: parameters, sharpness: sharpness, camera: feed.camera))
            if complete { break }
        }
        var outcome = Outcome(saved: saved, log: log)
        outcome.uncertainty = assistant?.uncertainty
        return outcome
    }

    /// Writes the view and the log with it, both or neither.
    private mutating func save(_ sourced: SourcedFrame, parameters: CaptureAssistant.ViewParameters?, sharpness: Double?,
                               camera: V4L2Camera?) throws -> URL {
        let name = Self.viewName(log.images.count)
        let url = directory.appendingPathComponent(name)
        var files = OutputFiles()
        files.add(try sourced.frame.encoded(as: "png"), at: url)
        var next = log
        var state = camera.map { CameraState(camera: $0) }
        next.images.append(CaptureLog.Entry(file: name, time: sourced.time, parameters: parameters, sharpness: sharpness, focus: state?.focus))
        let focus = next.images.compactMap(\.focus)
        if let low = focus.min(), let high = focus.max() { state?.focusRange = [low, high] }
        next.camera = state
        files.add(try next.encoded(), at: directory.appendingPathComponent("capture.json"))
        try files.commit()
        log = next
        return url
    }
}

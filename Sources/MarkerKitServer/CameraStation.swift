import Foundation
import MarkerKit

/// The camera of `markerkit serve`. One reading thread owns the device (or the video, or the image
/// folder) and runs a `CaptureSession` on it, as `markerkit capture` does: with a board the capture
/// assistant keeps views, without one a view is kept when asked. Browsers never touch the device: they
/// look at what the station publishes (the newest picture with the board or the markers drawn, and the
/// assistant's state) and ask it to keep a view. A video or image folder is played at its own pace, so
/// that it looks live, and every frame is considered, so that the views kept are those `capture --auto`
/// keeps from it.
public final class CameraStation: Station, @unchecked Sendable {
    public struct Configuration: Sendable {
        public var device: String
        public var options = FrameSources.Options()
        /// The board; without one, markers of `dictionary` are drawn and views are kept on request.
        public var target: CalibrationTarget?
        public var dictionary: MarkerDictionary = .arucoOriginal
        /// Where the kept views and their `capture.json` go.
        public var directory: URL
        public var count = 30
        public var untilSigma: Double?
        public var force = false

        public init(device: String, directory: URL) {
            self.device = device
            self.directory = directory
        }
    }

    public let configuration: Configuration
    public let isCamera: Bool
    private let feed: FrameFeed
    private let lock = NSLock()
    private var state: StationStatus
    private let latest = LatestPicture()
    private var thumbnails: [Data] = []
    private var saved: [URL] = []
    /// The view being saved (its thumbnail and sharpness), listed once the session has saved it.
    private var pending: (thumbnail: Data, sharpness: Double?)?
    private let thread = StationThread()

    /// Opens the device and checks the views' folder (which must exist); fails at once (no thread
    /// started) when either cannot be used.
    public init(_ configuration: Configuration) throws {
        self.configuration = configuration
        isCamera = FrameSources.isCamera(configuration.device)
        let session = try Self.session(configuration)
        try session.checkDestination(force: configuration.force)
        var options = configuration.options
        options.color = true // pictures are drawn on in colour; every source gives BGR when asked
        feed = FrameFeed(source: try FrameSources.open(configuration.device, options: options), isCamera: isCamera)
        state = StationStatus(device: configuration.device, directory: configuration.directory.path, count: configuration.count,
                              board: configuration.target?.summary, untilSigma: configuration.untilSigma)
    }

    private static func session(_ c: Configuration) throws -> CaptureSession {
        try CaptureSession(directory: c.directory, source: c.device, target: c.target, count: c.count,
                           trigger: c.target == nil ? .onRequest : .assistant, untilSigma: c.untilSigma)
    }

    /// Starts the reading thread.
    public func start() { thread.start(name: "markerkit serve camera") { [self] in run() } }

    /// Stops the reading thread and releases the device; waits at most `timeout` seconds for the thread.
    @discardableResult
    public func stop(timeout: Double) -> Bool { thread.stop(timeout: timeout) { feed.stop() } }

    /// A page (or any client the server lets in) has come: a video file or image folder starts playing
    /// now, so that nothing of it goes by before anyone watches (a camera streams from the start).
    public func audienceArrived() { thread.audienceArrived() }

    /// The next frame a browser sees is kept as a view (with a board: when the board is found in it and sharp).
    public func requestKeep() { thread.requestKeep() }

    public var status: StationStatus { lock.withLock { state } }

    /// The camera, when the device is one (its controls, what its lock did).
    public var camera: V4L2Camera? { feed.camera }

    /// The views kept so far, in order.
    public var savedViews: [URL] { lock.withLock { saved } }

    /// A kept view's thumbnail (JPEG, 160 px wide).
    public func thumbnail(_ index: Int) -> Data? { lock.withLock { thumbnails.indices.contains(index) ? thumbnails[index] : nil } }

    public var kept: KeptViews { .camera(savedViews) }

    /// The newest picture as JPEG with its sequence number, when it is newer than `sequence`; each
    /// picture is encoded once, however many browsers watch.
    public func picture(after sequence: Int) throws -> (sequence: Int, jpeg: Data)? { try latest.picture(after: sequence) }

    // MARK: The reading thread

    private var shouldStop: Bool { thread.isStopping }

    /// Whether the station was told to stop (the server is stopping).
    public var isStopping: Bool { shouldStop }

    private func run() {
        var pace = Pace(live: isCamera)
        var keptByTheSession = 0
        do {
            var session = try Self.session(configuration)
            defer { keptByTheSession = session.log.images.count }
            if !isCamera {
                setPhase("waiting for a page")
                thread.waitForAudience()
            }
            setPhase("capturing")
            let outcome = try session.run(feed: feed, shouldStop: { shouldStop }, request: { thread.takeKeepRequest() },
                                onUpdate: { update in
                                    try publish(update)
                                    pace.wait(until: update.frame.time, stop: { shouldStop })
                                })
            lock.withLock { commitPending(saved: outcome.saved.count) }
            // The session has its views (or the device stopped): the picture goes on.
            setPhase(shouldStop ? "stopped" : "watching")
            var sourced = SourcedFrame.empty
            while !shouldStop, try feed.next(into: &sourced) {
                try publish(sourced, corners: nil, saving: false, uncertainty: nil)
                pace.wait(until: sourced.time, stop: { shouldStop })
            }
            setPhase(shouldStop ? "stopped" : "ended", message: shouldStop ? nil : "the \(isCamera ? "camera stopped sending" : "video ended"); the kept views stay")
        } catch MarkerKitError.cameraLost(let message) {
            lock.withLock { commitPending(saved: keptByTheSession) }
            setPhase("disconnected", message: "camera disconnected: \(message); the kept views stay and the page goes on")
        } catch let error as MarkerKitError {
            setPhase("failed", message: error.description)
        } catch {
            setPhase("failed", message: "\(error)")
        }
        feed.stop()
    }

    private func setPhase(_ phase: String, message: String? = nil) {
        lock.withLock {
            state.phase = phase
            state.message = message
        }
    }

    /// Without a board: the markers of each frame, as `markerkit track` finds and draws them.
    private lazy var tracking: TrackingSession = {
        var analyzer = MarkerFrameAnalyzer()
        analyzer.detector = MarkerDetector(dictionary: configuration.dictionary)
        return TrackingSession(analyzer: analyzer)
    }()

    private func publish(_ update: CaptureSession.Update) throws {
        var thumbnail: Data?
        if update.saving {
            let gray = try Grayscale.image(from: update.frame.frame).scaled(toWidth: 160)
            thumbnail = try Frame(width: gray.width, height: gray.height, stride: gray.width, format: .gray8, bytes: gray.pixels).encoded(as: "jpg")
        }
        try publish(update.frame, corners: update.corners, saving: update.saving, uncertainty: update.uncertainty)
        lock.withLock {
            commitPending(saved: update.saved)
            state.verdict = update.verdict.map { "\($0)" }
            state.coverage = update.coverage.map { StationStatus.coverage($0) } ?? []
            if let thumbnail { pending = (thumbnail, update.sharpness) }
        }
    }

    /// Lists the pending view once the session has saved it (`saved` views are on disk).
    private func commitPending(saved count: Int) {
        if let view = pending, thumbnails.count < count {
            saved.append(configuration.directory.appendingPathComponent(CaptureSession.viewName(thumbnails.count)))
            thumbnails.append(view.thumbnail)
            if let sharpness = view.sharpness { state.sharpness.append(sharpness) }
        }
        pending = nil
        state.views = saved.count
    }

    private func publish(_ sourced: SourcedFrame, corners: [Point2]?, saving: Bool, uncertainty: CaptureAssistant.UncertaintyState?) throws {
        var frame = sourced.frame
        var markerCount: Int?
        if corners == nil && configuration.target == nil {
            let (result, annotated) = try tracking.track(sourced, annotate: true)
            frame = annotated ?? frame
            markerCount = result.markers.count
        }
        try CaptureOverlay.draw(on: &frame, corners: corners, saving: saving, uncertainty: uncertainty)
        latest.publish(frame)
        lock.withLock {
            state.width = frame.width
            state.height = frame.height
            state.frames = feed.processed
            state.dropped = feed.dropped
            state.bad = feed.badFrames
            state.fps = feed.framesPerSecond
            state.corners = corners?.count
            state.markers = markerCount
            if let uncertainty { state.uncertainty = StationStatus.Uncertainty(uncertainty) }
        }
    }
}

/// Plays a file at its own frame times (a live camera is not waited for): each frame is shown when its
/// time has come since the first; frames without times (image folders) five a second.
struct Pace {
    let live: Bool
    private let clock = ContinuousClock()
    private var start: ContinuousClock.Instant?
    private var last = -1.0, fallback = 0.0

    init(live: Bool) { self.live = live }

    mutating func wait(until time: Double, stop: () -> Bool) {
        guard !live else { return }
        let now = clock.now
        let begin = start ?? now
        start = begin
        fallback = time > last ? time : fallback + 0.2
        last = max(last, time)
        let due = begin + .milliseconds(Int(fallback * 1000))
        while clock.now < due && !stop() { Thread.sleep(forTimeInterval: min(0.02, Self.seconds(due - clock.now))) }
    }

    static func seconds(_ d: Duration) -> Double {
        Double(d.components.seconds) + Double(d.components.attoseconds) * 1e-18
    }
}

import Foundation
import MarkerKit

/// The cameras of `markerkit serve` with several `--device`: one reading thread owns every device and
/// runs a `RigCaptureSession` on them, as `markerkit capture` with several `--device` does (frames matched
/// by their drivers' timestamps, a set kept only when every camera finds the board in frames close enough
/// together). Browsers see the cameras' pictures side by side with the boards drawn, each camera's
/// coverage, and how sure a rig from the sets so far is of each camera's place (`RigPairState`).
public final class RigStation: Station, @unchecked Sendable {
    public struct Configuration: Sendable {
        public var devices: [String]
        public var names: [String]
        public var options = FrameSources.Options()
        public var target: CalibrationTarget
        /// Where each camera's folder, its views and `capture.json`, and `rig.json` go.
        public var directory: URL
        public var count = 30
        /// The largest gap between a set's frames (s); nil: half the slowest camera's frame time and 2 ms.
        public var maxGap: Double?
        public var force = false

        public init(devices: [String], names: [String], target: CalibrationTarget, directory: URL) {
            self.devices = devices
            self.names = names
            self.target = target
            self.directory = directory
        }
    }

    public let configuration: Configuration
    /// The gap a set's frames may have (s), as used.
    public let maxGap: Double
    private let feeds: [FrameFeed]
    private let isCamera: Bool
    private let lock = NSLock()
    private var state: StationStatus
    private let latest = LatestPicture()
    private var thumbnails: [Data] = []
    private var saved: [[URL]]
    /// The set being saved (its thumbnail), listed once the session has saved it.
    private var pending: Data?
    private let thread = StationThread()

    /// Opens every device and checks the folder; fails at once (every device opened so far released)
    /// when one cannot be used.
    public init(_ configuration: Configuration) throws {
        self.configuration = configuration
        try RigCaptureSession(directory: configuration.directory, names: configuration.names, devices: configuration.devices,
                              target: configuration.target, count: configuration.count, maxGap: configuration.maxGap ?? 0.5).checkDestination(force: configuration.force)
        var options = configuration.options
        options.color = true
        var feeds: [FrameFeed] = []
        do {
            for device in configuration.devices {
                feeds.append(FrameFeed(source: try FrameSources.open(device, options: options), isCamera: FrameSources.isCamera(device)))
            }
        } catch {
            for feed in feeds { feed.stop() }
            throw error
        }
        self.feeds = feeds
        isCamera = FrameSources.isCamera(configuration.devices[0])
        let slowest = feeds.compactMap { $0.camera?.framesPerSecond }.filter { $0.isFinite && $0 > 0 }.min() ?? 30
        maxGap = configuration.maxGap ?? min(1, 0.5 / slowest + 0.002)
        saved = configuration.names.map { _ in [] }
        state = StationStatus(device: configuration.devices.joined(separator: " + "), directory: configuration.directory.path, count: configuration.count,
                              board: configuration.target.summary, untilSigma: nil)
        state.rig = StationStatus.Rig(cameras: zip(configuration.names, configuration.devices).map { StationStatus.Rig.Camera(name: $0, device: $1) },
                                      maxGap: maxGap)
    }

    /// Starts the reading thread.
    public func start() { thread.start(name: "markerkit serve rig") { [self] in run() } }

    /// Stops the reading thread and releases the devices; waits at most `timeout` seconds for the thread.
    @discardableResult
    public func stop(timeout: Double) -> Bool { thread.stop(timeout: timeout) { for feed in feeds { feed.stop() } } }

    public func audienceArrived() { thread.audienceArrived() }
    public func requestKeep() { thread.requestKeep() }
    public var status: StationStatus { lock.withLock { state } }
    public var camera: V4L2Camera? { feeds[0].camera }
    public var kept: KeptViews { lock.withLock { .rig(names: configuration.names, views: saved) } }
    public func thumbnail(_ index: Int) -> Data? { lock.withLock { thumbnails.indices.contains(index) ? thumbnails[index] : nil } }
    public func picture(after sequence: Int) throws -> (sequence: Int, jpeg: Data)? { try latest.picture(after: sequence) }
    public var isStopping: Bool { thread.isStopping }

    // MARK: The reading thread

    private func run() {
        var pace = Pace(live: isCamera)
        do {
            var session = try RigCaptureSession(directory: configuration.directory, names: configuration.names, devices: configuration.devices,
                                                target: configuration.target, count: configuration.count, maxGap: maxGap)
            session.findsEveryBoard = true // the page shows each camera's board as it is held
            if !isCamera {
                setPhase("waiting for a page")
                thread.waitForAudience()
            }
            setPhase("capturing")
            let outcome = try session.run(feeds: feeds, shouldStop: { isStopping }, request: { thread.takeKeepRequest() },
                                          onUpdate: { update in
                                              try publish(update)
                                              pace.wait(until: update.frames[0].time, stop: { isStopping })
                                          })
            lock.withLock { commitPending(saved: outcome.saved[0].count) }
            setPhase(isStopping ? "stopped" : "watching")
            var frames = feeds.map { _ in SourcedFrame.empty }
            watching: while !isStopping {
                for c in feeds.indices { guard try feeds[c].next(into: &frames[c]) else { break watching } }
                try show(frames.map(\.frame), corners: frames.map { _ in nil }, saving: false)
                pace.wait(until: frames[0].time, stop: { isStopping })
            }
            setPhase(isStopping ? "stopped" : "ended", message: isStopping ? nil : "a \(isCamera ? "camera stopped sending" : "video ended"); the kept sets stay")
        } catch MarkerKitError.cameraLost(let message) {
            setPhase("disconnected", message: "camera disconnected: \(message); the kept sets stay and the page goes on")
        } catch let error as MarkerKitError {
            setPhase("failed", message: error.description)
        } catch {
            setPhase("failed", message: "\(error)")
        }
        lock.withLock { commitPending(saved: nil) } // a set saved just before the end
        for feed in feeds { feed.stop() }
    }

    private func setPhase(_ phase: String, message: String? = nil) {
        lock.withLock {
            state.phase = phase
            state.message = message
        }
    }

    private func publish(_ update: RigCaptureSession.Update) throws {
        let picture = try show(update.frames.map(\.frame), corners: update.corners, saving: update.saving)
        let thumbnail = update.saving ? try Self.thumbnail(of: picture) : nil
        lock.withLock {
            commitPending(saved: update.saved)
            if let thumbnail { pending = thumbnail }
            state.verdict = update.verdicts[0].map { "\($0)" }
            state.corners = update.corners[0]?.count
            state.coverage = StationStatus.coverage(update.coverage[0])
            state.rig?.gap = update.gap
            state.rig?.unmatched = update.unmatched
            state.rig?.pairs = update.pairs
            for c in update.frames.indices {
                state.rig?.cameras[c].verdict = update.verdicts[c].map { "\($0)" }
                state.rig?.cameras[c].corners = update.corners[c]?.count
                state.rig?.cameras[c].coverage = StationStatus.coverage(update.coverage[c])
            }
        }
    }

    /// Lists the pending set once the session has saved it: `count` sets are on disk (nil: when its
    /// last camera's view is).
    private func commitPending(saved count: Int?) {
        if let thumbnail = pending, thumbnails.count < count ?? Int.max {
            let urls = configuration.names.map { configuration.directory.appendingPathComponent($0).appendingPathComponent(CaptureSession.viewName(thumbnails.count)) }
            if count != nil || FileManager.default.fileExists(atPath: urls.last!.path) {
                for c in saved.indices { saved[c].append(urls[c]) }
                thumbnails.append(thumbnail)
            }
        }
        pending = nil
        state.views = thumbnails.count
    }

    /// Draws each camera's board on its frame and publishes the frames side by side.
    @discardableResult
    private func show(_ frames: [Frame], corners: [[Point2]?], saving: Bool) throws -> Frame {
        var drawn = frames
        for c in drawn.indices { try CaptureOverlay.draw(on: &drawn[c], corners: corners[c], saving: saving, uncertainty: nil) }
        let picture = Frame.sideBySide(drawn)
        latest.publish(picture)
        lock.withLock {
            state.width = picture.width
            state.height = picture.height
            state.frames = feeds[0].processed
            state.dropped = feeds.map(\.dropped).reduce(0, +)
            state.bad = feeds.map(\.badFrames).reduce(0, +)
            state.fps = feeds.map(\.framesPerSecond).min() ?? 0
            for c in frames.indices {
                state.rig?.cameras[c].width = frames[c].width
                state.rig?.cameras[c].height = frames[c].height
            }
        }
        return picture
    }

    /// The set's pictures side by side, 120 px high per camera.
    static func thumbnail(of picture: Frame) throws -> Data {
        let gray = try Grayscale.image(from: picture).scaled(toWidth: max(1, picture.width * 120 / max(1, picture.height)))
        return try Frame(width: gray.width, height: gray.height, stride: gray.width, format: .gray8, bytes: gray.pixels).encoded(as: "jpg")
    }
}

extension Frame {
    /// Frames side by side, tops aligned, 8 dark pixels between them, in BGR (gray frames are made BGR).
    static func sideBySide(_ frames: [Frame], gap: Int = 8) -> Frame {
        let width = frames.map(\.width).reduce(0, +) + gap * max(0, frames.count - 1), height = frames.map(\.height).max() ?? 0
        var bytes = [UInt8](repeating: 32, count: max(1, width * height * 3))
        var left = 0
        bytes.withUnsafeMutableBufferPointer { out in
            for frame in frames {
                let channels = frame.format.channels
                frame.bytes.withUnsafeBufferPointer { source in
                    for y in 0..<frame.height {
                        let row = y * frame.stride, at = (y * width + left) * 3
                        if channels == 3 {
                            UnsafeMutableRawPointer(out.baseAddress! + at).copyMemory(from: source.baseAddress! + row, byteCount: frame.width * 3)
                            continue
                        }
                        for x in 0..<frame.width {
                            let p = row + x * channels, q = at + 3 * x
                            out[q] = source[p]
                            out[q + 1] = source[p + (channels > 1 ? 1 : 0)]
                            out[q + 2] = source[p + (channels > 1 ? 2 : 0)]
                        }
                    }
                }
                left += frame.width + gap
            }
        }
        return Frame(width: max(width, 1), height: max(height, 1), stride: max(width, 1) * 3, format: .bgr8, bytes: bytes)
    }
}

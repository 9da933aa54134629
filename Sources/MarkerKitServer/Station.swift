import Foundation
import MarkerKit

/// What `markerkit serve` serves: one camera (`CameraStation`) or a rig of cameras (`RigStation`). A
/// station owns its devices on its own reading thread; browsers only look at what it publishes and ask it
/// to keep a view.
public protocol Station: AnyObject, Sendable {
    func start()
    @discardableResult func stop(timeout: Double) -> Bool
    /// A page (or any client the server lets in) has come: a video file starts playing now.
    func audienceArrived()
    /// The next frame (set of frames, for a rig) with the board found and sharp is kept.
    func requestKeep()
    var status: StationStatus { get }
    /// The camera whose controls the page shows (a rig's first).
    var camera: V4L2Camera? { get }
    var kept: KeptViews { get }
    /// A kept view's thumbnail (JPEG, 160 px high per camera).
    func thumbnail(_ index: Int) -> Data?
    /// The newest picture as JPEG with its sequence number, when it is newer than `sequence`.
    func picture(after sequence: Int) throws -> (sequence: Int, jpeg: Data)?
    var isStopping: Bool { get }
}

extension Station {
    @discardableResult public func stop() -> Bool { stop(timeout: 1) }
}

/// The views a station has kept: one camera's files, or a rig's, each camera's in its own folder and
/// named alike across them.
public enum KeptViews: Sendable {
    case camera([URL])
    case rig(names: [String], views: [[URL]])

    /// How many views (sets, for a rig).
    public var count: Int {
        switch self {
        case .camera(let views): views.count
        case .rig(_, let views): views.first?.count ?? 0
        }
    }
}

/// The newest picture a station has made, encoded as JPEG once however many browsers watch.
final class LatestPicture: @unchecked Sendable {
    private let lock = NSLock()
    private var picture: (sequence: Int, frame: Frame)?
    private var encoded: (sequence: Int, jpeg: Data)?

    func publish(_ frame: Frame) {
        lock.withLock { picture = ((picture?.sequence ?? 0) + 1, frame) }
    }

    func picture(after sequence: Int) throws -> (sequence: Int, jpeg: Data)? {
        let (current, cached) = lock.withLock { (picture, encoded) }
        guard let current, current.sequence > sequence else { return nil }
        if let cached, cached.sequence == current.sequence { return cached }
        let jpeg = try current.frame.encoded(as: "jpg")
        lock.withLock { if (encoded?.sequence ?? -1) < current.sequence { encoded = (current.sequence, jpeg) } }
        return (current.sequence, jpeg)
    }
}

/// A station's reading thread and what browsers ask of it: stop, someone watches, keep the next view.
final class StationThread: @unchecked Sendable {
    private let lock = NSLock()
    private var started = false, stopping = false, audience = false, keepRequested = false
    private let finished = DispatchSemaphore(value: 0)

    /// Starts `body` on its own thread.
    func start(name: String, _ body: @escaping @Sendable () -> Void) {
        lock.withLock { started = true }
        let thread = Thread { [self] in
            body()
            finished.signal()
        }
        thread.name = name
        thread.start()
    }

    /// Marks the station stopping, runs `release` (which ends a device's blocking read) and waits at most
    /// `timeout` seconds for the thread; a second stop returns at once.
    func stop(timeout: Double, release: () -> Void) -> Bool {
        let wasStarted = lock.withLock { stopping = true; return started }
        release()
        guard wasStarted else { return true }
        let done = finished.wait(timeout: .now() + timeout) == .success
        if done { finished.signal() }
        return done
    }

    var isStopping: Bool { lock.withLock { stopping } }
    func audienceArrived() { lock.withLock { audience = true } }
    func requestKeep() { lock.withLock { keepRequested = true } }

    /// Whether a keep was asked for since the last call.
    func takeKeepRequest() -> Bool { lock.withLock { defer { keepRequested = false }; return keepRequested } }

    /// Waits until someone watches (a file is played from then on) or the station stops.
    func waitForAudience() {
        while !isStopping && !lock.withLock({ audience }) { Thread.sleep(forTimeInterval: 0.02) }
    }
}

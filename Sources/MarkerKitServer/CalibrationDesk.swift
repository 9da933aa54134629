import Foundation
import MarkerKit

/// What the page's calibrate, store and download buttons do, through the types `markerkit calibrate`
/// and `markerkit calibrations` use: a calibration of the kept views (`CalibrationJob` on the saved files,
/// so it equals `markerkit calibrate` on the views' folder), its report (`CalibrationReport`), its exports
/// (`CalibrationFormat`) and the store (`CalibrationLocation`, `CalibrationStore`).
public final class CalibrationDesk: @unchecked Sendable {
    /// The result as the page shows it.
    public struct Summary: Codable, Sendable {
        public let name: String
        public let lines: [String]
        public let used: Int
        public let images: Int
        public let notUsed: [String]
        /// Every export format, with why it cannot carry this calibration when it cannot (Kalibr and k3, say).
        public let formats: [Format]
        /// The verdict ("good", "usable in the centre", "not usable"), why, and what to do (also in `lines`).
        public let verdict: Verdict?
        /// A rig of cameras (no PDF report; its exports are the rig formats).
        public var rig = false
    }

    public struct Verdict: Codable, Sendable {
        public let grade: String
        public let reason: String
        public let advice: [String]
    }

    public struct Format: Codable, Sendable {
        public let name: String
        public let problem: String?
    }

    /// One calibration of the store, as `calibrations list` shows it.
    public struct Stored: Codable, Sendable {
        public let name: String
        public let model: String?
        public let width: Int?, height: Int?
        public let fx: Double?, fy: Double?
        public let rms: Double?
        public let views: Int?
        public let problem: String?
        /// A rig's cameras and the baseline of its first two (units).
        public var cameras: [String]? = nil
        public var baseline: Double? = nil
        public var units: String? = nil
        /// A rig's formats that are one file and can carry it.
        public var formats: [String]? = nil
    }

    public let store: CalibrationStore
    public let target: CalibrationTarget?
    private let lock = NSLock()
    private var result: Calibrator.Result?
    /// The last calibration of a rig (`RigStation`'s sets); the last calibrate makes one of the two current.
    private var rigResult: RigCalibrator.Result?
    private var busy = false
    /// The name the last calibration was stored under.
    private var name = CalibrationStore.defaultName

    /// `store`, whose path the desk's messages never show (they go to a browser).
    public init(store: CalibrationStore, target: CalibrationTarget?) {
        self.store = store.hidingPath()
        self.target = target
    }

    /// Calibrates from the kept views (one camera's or a rig's sets) with the lens model named; one
    /// calibration at a time.
    public func calibrate(_ kept: KeptViews, model: String?) throws -> Summary {
        guard let target else { throw MarkerKitError.invalidArgument("calibrating needs a board: this server was started without a board spec") }
        guard kept.count > 0 else { throw MarkerKitError.invalidArgument("no views kept yet: hold the board in front of the camera, or press keep view") }
        try lock.withLock {
            guard !busy else { throw ServerRefusal.busy("a calibration is running already") }
            busy = true
        }
        defer { lock.withLock { busy = false } }
        switch kept {
        case .camera(let views): return try calibrate(views: views, target: target, model: model)
        case .rig(let names, let views): return try calibrateRig(names: names, views: views, target: target, model: model)
        }
    }

    private func calibrate(views: [URL], target: CalibrationTarget, model: String?) throws -> Summary {
        var job = CalibrationJob(target: target, images: views, name: CalibrationStore.defaultName)
        // The camera's state is in the log beside the views (written with each view).
        job.camera = try? CaptureLog.read(from: views[0].deletingLastPathComponent().appendingPathComponent("capture.json")).log.camera
        if let model {
            job.calibrator.model = try CameraCalibration.Model.solvable(named: model)
        }
        let result = try job.run()
        lock.withLock {
            self.result = result
            rigResult = nil
            name = result.calibration.name
        }
        return summary(result, images: views.count)
    }

    private func summary(_ result: Calibrator.Result, images: Int) -> Summary {
        let verdict = CalibrationVerdict(result.calibration).map { Verdict(grade: $0.grade.rawValue, reason: $0.reason, advice: $0.advice) }
        return Summary(name: result.calibration.name, lines: CalibrationSummary.lines(for: result.calibration), used: result.used.count, images: images,
                notUsed: result.views.filter { $0.status != .used }.map { "\($0.file): \($0.reason)" },
                formats: CalibrationFormat.allCases.map { format in
                    do {
                        _ = try format.encode(result.calibration)
                        return Format(name: format.rawValue, problem: nil)
                    } catch {
                        return Format(name: format.rawValue, problem: (error as? MarkerKitError)?.description ?? "\(error)")
                    }
                }, verdict: verdict)
    }

    private func current() throws -> Calibrator.Result {
        guard let result = lock.withLock({ result }) else {
            if lock.withLock({ rigResult }) != nil { throw ServerRefusal.notFound("the last calibration is a rig's") }
            throw ServerRefusal.notFound("no calibration yet: press calibrate first")
        }
        return result
    }

    /// Makes a rig's calibration the current one.
    func setCurrent(rig: RigCalibrator.Result) {
        lock.withLock {
            rigResult = rig
            result = nil
            name = rig.rig.name
        }
    }

    /// The last calibration when it is a rig's, under the name it was stored as; nil when it is one camera's.
    func currentRig() throws -> CameraRig? {
        let current: (rig: CameraRig?, camera: Bool, name: String) = lock.withLock { (rigResult?.rig, result != nil, name) }
        guard var rig = current.rig else {
            if !current.camera { throw ServerRefusal.notFound("no calibration yet: press calibrate first") }
            return nil
        }
        rig.name = current.name
        return rig
    }

    /// The last calibration, under the name it was stored as.
    private func currentCalibration() throws -> CameraCalibration {
        var calibration = try current().calibration
        calibration.name = lock.withLock { name }
        return calibration
    }

    /// The report of the last calibration (PDF, as `calibrate --report`).
    public func report() throws -> Data {
        if lock.withLock({ rigResult }) != nil { throw ServerRefusal.notFound("a rig has no PDF report: its figures are in the summary") }
        return try CalibrationReport(result: try current()).document().render(as: .pdf, dpi: 150)[0]
    }

    /// The last calibration in a format (`calibrations export`), with its file name.
    public func export(format name: String) throws -> (name: String, data: Data) {
        if let rig = try currentRig() { return try Self.export(rig, format: name) }
        let format = try CalibrationFormat(name: name)
        let calibration = try currentCalibration()
        return ("\(calibration.name).\(format.rawValue).\(format.fileExtension)", try format.encode(calibration))
    }

    /// Stores the last calibration under `name` (checked as the CLI checks it); an existing one only with `force`.
    public func store(name: String, force: Bool) throws -> URL {
        let name = try CalibrationStore.normalized(name: name)
        let location = try CalibrationLocation(name: name, in: store)
        if var rig = try currentRig() {
            rig.name = name
            try location.checkDestination(force: force)
            try location.write(rig, force: force)
        } else {
            var calibration = try currentCalibration()
            calibration.name = name
            try location.checkDestination(force: force)
            try location.write(calibration, force: force)
        }
        lock.withLock { self.name = name }
        return location.url
    }

    /// The last calibration as `calibrations show` prints it, under the name it was stored as.
    public func summaryLines() throws -> [String] {
        if let rig = try currentRig() { return RigSummary.lines(for: rig) }
        return CalibrationSummary.lines(for: try currentCalibration())
    }

    /// Every stored calibration.
    public func stored() -> [Stored] {
        store.names().map { name in
            do {
                if store.isRig(named: name) { return try Self.stored(rig: store.resolveRig(name), name: name) }
                let c = try store.resolve(name) // a listed name is a bare name: found in the store only
                return Stored(name: name, model: c.model.rawValue, width: c.imageWidth, height: c.imageHeight, fx: c.fx, fy: c.fy,
                              rms: c.provenance?.rms, views: c.provenance?.views, problem: nil)
            } catch {
                return Stored(name: name, model: nil, width: nil, height: nil, fx: nil, fy: nil, rms: nil, views: nil, problem: "\(error)")
            }
        }
    }

    /// A stored calibration in a format, with its file name.
    /// The name is taken as the store takes it (NFC), and only ever from the store: never a file elsewhere.
    public func export(stored name: String, format formatName: String) throws -> (name: String, data: Data) {
        let name = try CalibrationStore.normalized(name: name)
        guard let file = store.storedFile(for: name) else { throw ServerRefusal.notFound("no calibration named '\(name)' in the store") }
        if store.isRig(named: name) { return try Self.export(try CameraRig.read(from: file, shown: store.shown(file)), format: formatName) }
        let format = try CalibrationFormat(name: formatName)
        return ("\(name).\(format.rawValue).\(format.fileExtension)", try format.encode(try CameraCalibration.read(from: file, shown: store.shown(file))))
    }
}

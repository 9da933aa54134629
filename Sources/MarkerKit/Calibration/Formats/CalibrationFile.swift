import Foundation

extension CameraCalibration {
    /// Reads any calibration file MarkerKit knows, recognising the format by extension and content.
    /// Messages name the file as `shown` (default: as given, `url.relativePath`).
    public static func read(from url: URL, format: CalibrationFormat? = nil, shown: String? = nil) throws -> CameraCalibration {
        let shown = shown ?? url.relativePath
        let data = try MarkerKitError.contents(of: url, what: "calibration", shown: shown)
        let name = url.deletingPathExtension().lastPathComponent
        let chosen = format ?? CalibrationFormat.guess(url: url, data: data)
        if RigStorageFormat.isRig(data) {
            throw MarkerKitError.badInput("'\(shown)' is a rig of cameras, not one camera: export one of its cameras with 'markerkit calibrations export'")
        }
        do {
            return try chosen.decode(data, name: name)
        } catch let error as MarkerKitError {
            throw MarkerKitError.badInput("calibration '\(shown)' is malformed (\(chosen.rawValue)): \(error.description)")
        } catch {
            throw MarkerKitError.badInput("calibration '\(shown)' is malformed (\(chosen.rawValue))")
        }
    }
}

extension CameraRig {
    /// Reads a rig file (`RigStorageFormat`); messages name it as `shown`.
    public static func read(from url: URL, shown: String? = nil) throws -> CameraRig {
        let shown = shown ?? url.relativePath
        let data = try MarkerKitError.contents(of: url, what: "calibration", shown: shown)
        guard RigStorageFormat.isRig(data) else {
            throw MarkerKitError.badInput("'\(shown)' is one camera's calibration, not a rig (a rig comes from calibrating one folder per camera together)")
        }
        do {
            return try RigStorageFormat.decode(data, name: url.deletingPathExtension().lastPathComponent)
        } catch let error as MarkerKitError {
            throw MarkerKitError.badInput("rig '\(shown)' is malformed: \(error.description)")
        }
    }
}

extension CalibrationStore {
    /// The rig a `NAME|FILE` argument means, found as `resolve(_:)` finds a camera.
    public func resolveRig(_ nameOrPath: String) throws -> CameraRig {
        if Self.looksLikePath(nameOrPath), PathKind.of(nameOrPath) == .file {
            return try CameraRig.read(from: URL(fileURLWithPath: nameOrPath))
        }
        guard let stored = storedFile(for: nameOrPath) else {
            let rigs = names().filter { isRig(named: $0) }
            throw MarkerKitError.missingInput("no rig '\(Self.shown(name: nameOrPath))' in \(shownDirectory)" + (rigs.isEmpty ? " (rigs come from calibrating one folder per camera together)" : " (rigs: \(rigs.joined(separator: ", ")))"))
        }
        return try CameraRig.read(from: stored, shown: shown(stored))
    }

    /// Whether the stored file of `name` is a rig.
    public func isRig(named name: String) -> Bool {
        guard let url = storedFile(for: name), let handle = try? FileHandle(forReadingFrom: url) else { return false }
        defer { try? handle.close() }
        return RigStorageFormat.isRig((try? handle.read(upToCount: 4096)) ?? Data())
    }
}

extension CalibrationStore {
    /// What a `NAME|FILE` argument holds: one camera or a rig.
    public enum Entry: Sendable {
        case camera(CameraCalibration)
        case rig(CameraRig)
    }

    /// The camera or rig an argument means, found as `resolve(_:)` finds a camera.
    public func resolveEntry(_ nameOrPath: String) throws -> Entry {
        var url: URL?
        if Self.looksLikePath(nameOrPath), PathKind.of(nameOrPath) == .file { url = URL(fileURLWithPath: nameOrPath) }
        if url == nil, let stored = storedFile(for: nameOrPath) { url = stored }
        if let url, let handle = try? FileHandle(forReadingFrom: url) {
            let head = (try? handle.read(upToCount: 4096)) ?? Data()
            try? handle.close()
            if RigStorageFormat.isRig(head) { return .rig(try resolveRig(nameOrPath)) }
        }
        return .camera(try resolve(nameOrPath))
    }
}

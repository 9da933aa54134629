import Foundation

/// The `Calibrations/` folder: calibrations stored as `NAME.yaml` (OpenCV FileStorage YAML), found by
/// name, never replaced without `force`.
public struct CalibrationStore: Sendable {
    public let directory: URL

    /// `$MARKERKIT_CALIBRATIONS`, else `Calibrations/` in the working directory.
    public static var `default`: CalibrationStore {
        if let path = ProcessInfo.processInfo.environment["MARKERKIT_CALIBRATIONS"], !path.isEmpty {
            return CalibrationStore(directory: URL(fileURLWithPath: path))
        }
        return CalibrationStore(directory: URL(fileURLWithPath: "Calibrations"))
    }

    public init(directory: URL) { self.directory = directory }

    static let extensions = ["yaml", "yml", "xml", "json"]

    /// Checks a calibration name: letters, digits, `-`, `_`, `.`, not starting with a dot.
    public static func validate(name: String) throws {
        guard !name.isEmpty, !name.hasPrefix("."), name.count <= 100,
              name.allSatisfy({ $0.isLetter || $0.isNumber || "-_.".contains($0) }) else {
            throw MarkerKitError.invalidArgument("calibration name '\(name)': use letters, digits, - _ . (not starting with a dot)")
        }
    }

    /// The file a name is stored in: the one that exists (any of the store's extensions), else `NAME.yaml`.
    /// `CalibrationLocation(name:in:)` says the same with the format.
    public func url(for name: String) -> URL { storedFile(for: name) ?? directory.appendingPathComponent("\(name).yaml") }

    /// The file stored under `name`, if any.
    public func storedFile(for name: String) -> URL? {
        guard !name.contains("/") else { return nil }
        return Self.extensions.lazy.map { directory.appendingPathComponent("\(name).\($0)") }
            .first { FileManager.default.fileExists(atPath: $0.path) }
    }

    /// Stored calibration names, sorted.
    public func names() -> [String] {
        let files = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return files.filter { !$0.hasPrefix(".") && Self.extensions.contains(($0 as NSString).pathExtension.lowercased()) }
            .map { ($0 as NSString).deletingPathExtension }.sorted()
    }

    /// A path to a file, or the name of a stored calibration.
    public func resolve(_ nameOrPath: String) throws -> CameraCalibration {
        let asPath = URL(fileURLWithPath: nameOrPath)
        if FileManager.default.fileExists(atPath: asPath.path) { return try CameraCalibration.read(from: asPath) }
        if let stored = storedFile(for: nameOrPath) { return try CameraCalibration.read(from: stored) }
        let known = names()
        throw MarkerKitError.missingInput("no calibration '\(nameOrPath)': neither a file nor a name in \(directory.relativePath)/"
            + (known.isEmpty ? "" : " (stored: \(known.joined(separator: ", ")))"))
    }

    /// Stores `calibration` under its name (`CalibrationLocation(name:in:)`); creates the folder when missing.
    @discardableResult
    public func save(_ calibration: CameraCalibration, force: Bool) throws -> URL {
        let location = try CalibrationLocation(name: calibration.name, in: self)
        try location.write(calibration, force: force)
        return location.url
    }
}

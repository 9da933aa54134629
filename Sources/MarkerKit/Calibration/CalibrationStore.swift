import Foundation

/// The `Calibrations/` folder of stored calibrations, found by name (`NAME.yaml`, `.yml`, `.xml`, `.json`).
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

    /// A path to a file, or the name of a stored calibration.
    public func resolve(_ nameOrPath: String) throws -> CameraCalibration {
        let asPath = URL(fileURLWithPath: nameOrPath)
        if FileManager.default.fileExists(atPath: asPath.path) { return try CameraCalibration.read(from: asPath) }
        if !nameOrPath.contains("/") {
            for ext in Self.extensions {
                let stored = directory.appendingPathComponent("\(nameOrPath).\(ext)")
                if FileManager.default.fileExists(atPath: stored.path) { return try CameraCalibration.read(from: stored) }
            }
        }
        throw MarkerKitError.missingInput("no calibration '\(nameOrPath)': neither a file nor a name in \(directory.path)/")
    }
}

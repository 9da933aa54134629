import Foundation

/// Where a calibration is written and in which format, decided in this one place for every caller: a
/// name in a `CalibrationStore` (the file already stored under that name, else `NAME.yaml`), or a file of
/// the caller's whose extension says the format. Nothing that exists is replaced without `force`, by the
/// rule of `OutputFiles.checkDestination`.
public struct CalibrationLocation: Sendable, Equatable {
    public let url: URL
    public let format: CalibrationFormat
    /// In a store, whose folder is created when missing.
    public let inStore: Bool

    /// The extensions a calibration file may be written with, and their formats.
    public static let writableExtensions: [(String, CalibrationFormat)] = [
        ("yaml", .opencvYAML), ("yml", .opencvYAML), ("xml", .opencvXML), ("json", .json),
    ]

    /// `name` in `store`.
    public init(name: String, in store: CalibrationStore = .default) throws {
        try CalibrationStore.validate(name: name)
        url = store.storedFile(for: name) ?? store.directory.appendingPathComponent("\(name).yaml")
        format = try Self.format(for: url)
        inStore = true
    }

    /// A file of the caller's: .yaml or .yml (OpenCV FileStorage YAML), .xml, or .json.
    public init(file url: URL) throws {
        self.url = url
        format = try Self.format(for: url)
        inStore = false
    }

    /// The format a calibration file is written in, from its extension.
    public static func format(for url: URL) throws -> CalibrationFormat {
        let ext = url.pathExtension.lowercased()
        guard let format = writableExtensions.first(where: { $0.0 == ext })?.1 else {
            throw MarkerKitError.cannotWrite("cannot write '\(url.path)': a calibration is written as .yaml, .xml or .json")
        }
        return format
    }

    /// Fails before any work when the calibration could not be written, or would replace one without
    /// `force`. A store's folder that does not exist yet is no obstacle.
    public func checkDestination(force: Bool) throws {
        if inStore && !FileManager.default.fileExists(atPath: url.deletingLastPathComponent().path) { return }
        try OutputFiles.checkDestination(url, force: force)
    }

    /// Writes `calibration` atomically; an existing file is replaced only with `force`.
    public func write(_ calibration: CameraCalibration, force: Bool) throws {
        let directory = url.deletingLastPathComponent()
        if inStore && !FileManager.default.fileExists(atPath: directory.path) {
            do {
                try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            } catch {
                throw MarkerKitError.cannotWrite("cannot create the calibration store '\(directory.path)'")
            }
        }
        try checkDestination(force: force)
        try OutputFiles.writeProtected(try format.encode(calibration), to: url, force: force)
    }
}

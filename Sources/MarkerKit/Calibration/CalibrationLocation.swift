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
    /// In a store: the name as stored (NFC, `CalibrationStore.normalized(name:)`), which the calibration
    /// written should carry.
    public let name: String?
    /// The file as messages name it: relative to the store or as the caller gave it, never an absolute
    /// path the user did not type.
    public let shown: String
    /// In a store: the store's folder as messages name it.
    let shownDirectory: String?

    /// The extensions a calibration file may be written with, and their formats.
    public static let writableExtensions: [(String, CalibrationFormat)] = [
        ("yaml", .opencvYAML), ("yml", .opencvYAML), ("xml", .opencvXML), ("json", .json),
    ]

    /// `name` in `store`, by the rule of `CalibrationStore.normalized(name:)`.
    public init(name: String, in store: CalibrationStore = .default) throws {
        let name = try CalibrationStore.normalized(name: name)
        url = store.storedFile(for: name) ?? store.directory.appendingPathComponent("\(name).yaml")
        shown = store.shown(url)
        format = try Self.format(for: url, shown: shown)
        inStore = true
        self.name = name
        shownDirectory = store.shownDirectory
    }

    /// A file of the caller's: .yaml or .yml (OpenCV FileStorage YAML), .xml, or .json.
    public init(file url: URL) throws {
        self.url = url
        shown = url.relativePath
        format = try Self.format(for: url, shown: shown)
        inStore = false
        name = nil
        shownDirectory = nil
    }

    /// The format a calibration file is written in, from its extension.
    public static func format(for url: URL, shown: String? = nil) throws -> CalibrationFormat {
        let ext = url.pathExtension.lowercased()
        guard let format = writableExtensions.first(where: { $0.0 == ext })?.1 else {
            throw MarkerKitError.cannotWrite("cannot write '\(shown ?? url.relativePath)': a calibration is written as .yaml, .xml or .json")
        }
        return format
    }

    /// Fails before any work when the calibration could not be written, or would replace one without
    /// `force`. A store's folder that does not exist yet is no obstacle.
    public func checkDestination(force: Bool) throws {
        if inStore && !FileManager.default.fileExists(atPath: url.deletingLastPathComponent().path) { return }
        try OutputFiles.checkDestination(url, force: force, shown: shown)
    }

    /// Writes `calibration` atomically; an existing file is replaced only with `force`. Writers of one
    /// location at once each write whole: with `force` the file is one of theirs, complete; without, one
    /// of them stores it and the others are refused as `outputExists` (`OutputFiles.writeProtected`).
    public func write(_ calibration: CameraCalibration, force: Bool) throws {
        try write(data: try format.encode(calibration), force: force)
    }

    /// Writes a rig (OpenCV FileStorage YAML or XML, `RigStorageFormat`) as `write(_:force:)` writes a camera.
    public func write(_ rig: CameraRig, force: Bool) throws {
        guard format == .opencvYAML || format == .opencvXML else {
            throw MarkerKitError.cannotWrite("cannot write '\(shown)': a rig is written as .yaml or .xml (other formats: markerkit calibrations export)")
        }
        try write(data: try RigStorageFormat.encode(rig, xml: format == .opencvXML), force: force)
    }

    private func write(data: Data, force: Bool) throws {
        let directory = url.deletingLastPathComponent()
        if inStore && !FileManager.default.fileExists(atPath: directory.path) {
            do {
                try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            } catch {
                // Another writer may have made it a moment ago.
                var isDirectory: ObjCBool = false
                guard FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory), isDirectory.boolValue else {
                    throw MarkerKitError.cannotWrite("cannot create \(shownDirectory ?? "the calibration store")")
                }
            }
        }
        try checkDestination(force: force)
        try OutputFiles.writeProtected(data, to: url, force: force, shown: shown)
    }
}

import Foundation

extension CameraCalibration {
    /// Reads any calibration file MarkerKit knows, recognising the format by extension and content.
    /// Messages name the file as `shown` (default: as given, `url.relativePath`).
    public static func read(from url: URL, format: CalibrationFormat? = nil, shown: String? = nil) throws -> CameraCalibration {
        let shown = shown ?? url.relativePath
        let data = try MarkerKitError.contents(of: url, what: "calibration", shown: shown)
        let name = url.deletingPathExtension().lastPathComponent
        let chosen = format ?? CalibrationFormat.guess(url: url, data: data)
        do {
            return try chosen.decode(data, name: name)
        } catch let error as MarkerKitError {
            throw MarkerKitError.badInput("calibration '\(shown)' is malformed (\(chosen.rawValue)): \(error.description)")
        } catch {
            throw MarkerKitError.badInput("calibration '\(shown)' is malformed (\(chosen.rawValue))")
        }
    }
}

import Foundation

extension CameraCalibration {
    /// Reads any calibration file MarkerKit knows, recognising the format by extension and content.
    public static func read(from url: URL, format: CalibrationFormat? = nil) throws -> CameraCalibration {
        let data = try MarkerKitError.contents(of: url, what: "calibration")
        let name = url.deletingPathExtension().lastPathComponent
        let chosen = format ?? CalibrationFormat.guess(url: url, data: data)
        do {
            return try chosen.decode(data, name: name)
        } catch let error as MarkerKitError {
            throw MarkerKitError.badInput("calibration '\(url.path)' is malformed (\(chosen.rawValue)): \(error.description)")
        } catch {
            throw MarkerKitError.badInput("calibration '\(url.path)' is malformed (\(chosen.rawValue))")
        }
    }
}

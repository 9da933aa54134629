import Foundation

/// Whether a calibration fits the camera it is used on, and the calibration for the camera's stream: a
/// stream of another size with the same aspect ratio gets the intrinsics scaled (a webcam's smaller
/// modes are its sensor binned or resampled); another aspect ratio is refused (such a mode is a crop of
/// the sensor, and no scaling gives its intrinsics); a different focus or zoom, or autofocus left on, is
/// named in a warning (another focus is another lens).
public struct CalibrationFit: Sendable {
    /// The calibration to use for the stream.
    public let calibration: CameraCalibration
    /// Notices (the intrinsics were scaled) and warnings (the optics differ), one line each.
    public let notices: [String]
    public let warnings: [String]

    /// `scale` false refuses another size instead of scaling.
    public init(_ stored: CameraCalibration, width: Int, height: Int, live: CameraState?, scale: Bool = true) throws {
        var notices: [String] = []
        var calibration = stored
        let (w0, h0) = (stored.imageWidth, stored.imageHeight)
        if w0 > 0, h0 > 0, (w0, h0) != (width, height) {
            guard w0 * height == h0 * width else {
                throw MarkerKitError.invalidArgument("calibration '\(stored.name)' is for \(w0)x\(h0) but the camera streams \(width)x\(height), another aspect ratio (a cropped mode, not a scaled one): calibrate at this size or ask for --size \(w0)x\(h0)")
            }
            guard scale else {
                throw MarkerKitError.invalidArgument("calibration '\(stored.name)' is for \(w0)x\(h0) but the camera streams \(width)x\(height) (--no-scale): ask for --size \(w0)x\(h0)")
            }
            calibration = try Self.scaled(stored, width: width, height: height)
            notices.append(String(format: "calibration '%@' is for %dx%d: its intrinsics are scaled by %g for the camera's %dx%d",
                                  stored.name, w0, h0, Double(width) / Double(w0), width, height))
        }
        self.calibration = calibration
        self.notices = notices
        warnings = Self.warnings(stored: stored.camera, live: live, name: stored.name)
    }

    /// The intrinsics of the same lens seen at another resolution of the same aspect ratio: focal lengths
    /// and principal point scaled (about pixel centres), distortion unchanged (it acts on normalised
    /// coordinates). The projection covariance is scaled with them.
    public static func scaled(_ c: CameraCalibration, width: Int, height: Int) throws -> CameraCalibration {
        let sx = Double(width) / Double(c.imageWidth), sy = Double(height) / Double(c.imageHeight)
        var k = c.cameraMatrix
        k[0] *= sx; k[1] *= sx; k[2] = (k[2] + 0.5) * sx - 0.5
        k[4] *= sy; k[5] = (k[5] + 0.5) * sy - 0.5
        var scaled = try CameraCalibration(name: c.name, model: c.model, cameraMatrix: k, distortion: c.distortion,
                                           imageWidth: width, imageHeight: height, provenance: c.provenance)
        scaled.camera = c.camera
        if let u = c.projectionCovariance {
            // fx fy cx cy first, then the distortion: each variance scales with the product of its two scales.
            let n = Int(Double(u.matrix.count).squareRoot())
            let factor = (0..<n).map { $0 == 0 || $0 == 2 ? sx : $0 == 1 || $0 == 3 ? sy : 1 }
            let matrix = u.matrix.enumerated().map { $0.element * factor[$0.offset / n] * factor[$0.offset % n] }
            scaled.projectionCovariance = try ProjectionCovariance(matrix: matrix, noise: u.noise * (sx + sy) / 2, views: u.views, model: c.model)
        }
        return scaled
    }

    /// One line for each way the live optics differ from the stored ones.
    static func warnings(stored: CameraState?, live: CameraState?, name: String) -> [String] {
        guard let live else { return [] }
        var warnings: [String] = []
        if live.autofocus == true {
            warnings.append("the camera's autofocus is on: the focus may move away from the one calibration '\(name)' holds for (set focus_automatic_continuous=0, e.g. --set focus_automatic_continuous=0 --set focus_absolute=\(stored?.focus.map(String.init) ?? "N"))")
        }
        guard let stored else { return warnings }
        if let was = stored.focus, let now = live.focus, was != now {
            warnings.append("calibration '\(name)' was made at focus \(was), the camera is at focus \(now): another focus is another lens (--set focus_absolute=\(was))")
        }
        if let was = stored.zoom, let now = live.zoom, was != now {
            warnings.append("calibration '\(name)' was made at zoom \(was), the camera is at zoom \(now) (--set zoom_absolute=\(was))")
        }
        if !stored.card.isEmpty, !live.card.isEmpty, stored.card != live.card {
            warnings.append("calibration '\(name)' was made with '\(stored.card)', this camera is '\(live.card)'")
        }
        return warnings
    }
}

import Foundation

/// Whether a calibration fits the pictures it is used on, and the calibration for their size: pictures
/// of another size with the same aspect ratio get the intrinsics scaled (a webcam's smaller modes are its
/// sensor binned or resampled, a smaller photo the same picture resized); another aspect ratio is refused
/// (such a mode is a crop of the sensor, and no scaling gives its intrinsics); for a camera, a different
/// focus or zoom, or autofocus left on, is named in a warning (another focus is another lens). One rule
/// for a camera's stream (`track`, `capture`, `serve`) and for image and video files (`detect`,
/// `undistort`, `MarkerFrameAnalyzer`, `Undistorter`).
public struct CalibrationFit: Sendable {
    /// Where the pictures come from, as messages name them.
    public enum Pictures: Sendable {
        /// A camera's stream, which can be asked for another size.
        case camera
        /// Image or video files.
        case files
    }

    /// The calibration to use for the pictures.
    public let calibration: CameraCalibration
    /// Notices (the intrinsics were scaled) and warnings (the optics differ), one line each.
    public let notices: [String]
    public let warnings: [String]

    /// `scale` false refuses another size instead of scaling.
    public init(_ stored: CameraCalibration, width: Int, height: Int, live: CameraState?, scale: Bool = true, pictures: Pictures = .camera) throws {
        var notices: [String] = []
        var calibration = stored
        let (w0, h0) = (stored.imageWidth, stored.imageHeight)
        let mismatch = "calibration '\(stored.name)' is for \(w0)x\(h0) but \(pictures == .camera ? "the camera streams" : "the picture is") \(width)x\(height)"
        switch Self.relation(of: stored, toWidth: width, height: height) {
        case .asItIs: break
        case .otherAspect:
            let crop = "\(mismatch), another aspect ratio (a crop, not a scaled picture): calibrate at this size"
            throw pictures == .camera ? .advised(.invalidArgument(crop), .requestSize(width: w0, height: h0)) : MarkerKitError.badInput(crop)
        case .sameAspect:
            guard scale else { throw MarkerKitError.advised(.invalidArgument("\(mismatch) and scaling is off"), .allowScaling(width: w0, height: h0)) }
            calibration = try Self.scaled(stored, width: width, height: height)
            notices.append(Self.notice(stored, width: width, height: height, pictures: pictures))
        }
        self.calibration = calibration
        self.notices = notices
        warnings = Self.warnings(stored: stored.camera, live: live, name: stored.name)
    }

    /// How pictures of one size relate to a calibration: its own size (or a calibration for no size), the
    /// same aspect ratio (scaled), another one (refused).
    public enum Relation: Sendable { case asItIs, sameAspect, otherAspect }

    public static func relation(of c: CameraCalibration, toWidth width: Int, height: Int) -> Relation {
        let (w0, h0) = (c.imageWidth, c.imageHeight)
        guard w0 > 0, h0 > 0, (w0, h0) != (width, height) else { return .asItIs }
        return w0 * height == h0 * width ? .sameAspect : .otherAspect
    }

    /// The line that says a calibration was scaled to pictures of `width` x `height`.
    public static func notice(_ stored: CameraCalibration, width: Int, height: Int, pictures: Pictures) -> String {
        String(format: "calibration '%@' is for %dx%d: its intrinsics are scaled by %g for the %@ %dx%d", stored.name, stored.imageWidth,
               stored.imageHeight, Double(width) / Double(stored.imageWidth), pictures == .camera ? "camera's" : "pictures of", width, height)
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
            warnings.append("the camera's autofocus is on: the focus may move away from the one calibration '\(name)' holds for (set the controls focus_automatic_continuous=0 and focus_absolute=\(stored?.focus.map(String.init) ?? "N"))")
        }
        guard let stored else { return warnings }
        if let was = stored.focus, let now = live.focus, was != now {
            warnings.append("calibration '\(name)' was made at focus \(was), the camera is at focus \(now): another focus is another lens (set the control focus_absolute=\(was))")
        }
        if let was = stored.zoom, let now = live.zoom, was != now {
            warnings.append("calibration '\(name)' was made at zoom \(was), the camera is at zoom \(now) (set the control zoom_absolute=\(was))")
        }
        if !stored.card.isEmpty, !live.card.isEmpty, stored.card != live.card {
            warnings.append("calibration '\(name)' was made with '\(stored.card)', this camera is '\(live.card)'")
        }
        return warnings
    }
}

extension CameraCalibration {
    /// This calibration for files' pictures of `width` x `height`: itself when it is for that size (or
    /// for no size), else scaled or refused by the rule of `CalibrationFit`.
    public func fitted(width: Int, height: Int) throws -> CameraCalibration {
        guard CalibrationFit.relation(of: self, toWidth: width, height: height) != .asItIs else { return self }
        return try CalibrationFit(self, width: width, height: height, live: nil, pictures: .files).calibration
    }

    /// Whether pictures of `width` x `height` use this calibration scaled (`fitted(width:height:)`).
    public func isScaled(forWidth width: Int, height: Int) -> Bool {
        CalibrationFit.relation(of: self, toWidth: width, height: height) == .sameAspect
    }
}

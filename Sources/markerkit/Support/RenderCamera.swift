import MarkerKit

/// The camera renders use: a stored or given calibration (at its own image size), else the built-in
/// webcam at `size`.
func renderCamera(calibration: String?, size: ImageSize) throws -> CameraCalibration {
    if let calibration {
        let c = try CalibrationStore.default.resolve(calibration)
        guard c.imageWidth > 0, c.imageHeight > 0 else {
            throw MarkerKitError.badInput("calibration '\(calibration)' has no image size, which rendering needs")
        }
        return c
    }
    return BuiltInCamera.webcam(width: size.width, height: size.height)
}

/// `camera` with its k1 replaced (--k1 of render and verify): a pinhole lens only, k1 from -1 to 1.
func replacingK1(_ k1: Double?, of camera: CameraCalibration) throws -> CameraCalibration {
    guard let k1 else { return camera }
    guard camera.model != .fisheye, RenderLimits.k1.contains(k1) else {
        throw MarkerKitError.invalidArgument("--k1 takes a value from -1 to 1 for a pinhole camera")
    }
    var changed = camera
    changed.distortion[0] = k1
    return changed
}

/// Noise and blur as users may set them for renders.
func checkDegradations(noise: Double, blur: Double) throws {
    try RenderLimits.checkDegradations(noise: noise, blur: blur, noiseName: "--noise", blurName: "--blur")
}

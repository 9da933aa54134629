/// The camera renders use when no calibration is given: a webcam-like lens with moderate barrel
/// distortion, scaled to the image size.
public enum BuiltInCamera {
    public static func webcam(width: Int, height: Int) -> CameraCalibration {
        let f = 0.78 * Double(width)
        // cx, cy a little off centre, as real sensors are.
        return try! CameraCalibration(
            name: "builtin-webcam", model: .opencv5,
            cameraMatrix: [f, 0, Double(width) / 2 + 3.7, 0, f * 1.002, Double(height) / 2 - 2.9, 0, 0, 1],
            distortion: [-0.12, 0.06, 0.0006, -0.0004, -0.01], imageWidth: width, imageHeight: height)
    }
}

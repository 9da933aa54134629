import Foundation
/// The cameras renders use when no calibration is given.
public enum BuiltInCamera {
    /// A webcam-like lens with moderate barrel distortion, scaled to the image size.
    public static func webcam(width: Int, height: Int) -> CameraCalibration {
        let f = 0.78 * Double(width)
        // cx, cy a little off centre, as real sensors are.
        return try! CameraCalibration(
            name: "builtin-webcam", model: .opencv5,
            cameraMatrix: [f, 0, Double(width) / 2 + 3.7, 0, f * 1.002, Double(height) / 2 - 2.9, 0, 0, 1],
            distortion: [-0.12, 0.06, 0.0006, -0.0004, -0.01], imageWidth: width, imageHeight: height)
    }

    /// A phone's main camera as its JPEGs come out: a wide lens (fx 0.82 of the long side on a 12 MP
    /// sensor, 0.88 on others) and the mild distortion the phone's own correction leaves (a few pixels
    /// at most). Landscape is the same lens with x and y swapped.
    public static func phone(width: Int, height: Int) -> CameraCalibration {
        let long = Double(max(width, height))
        let f = (long >= 4000 ? 0.82 : 0.88) * long
        let portrait = height >= width
        let (cx, cy) = portrait ? (Double(width) / 2 + 4.1, Double(height) / 2 - 6.3) : (Double(width) / 2 - 6.3, Double(height) / 2 + 4.1)
        let (p1, p2) = portrait ? (0.0005, -0.0003) : (-0.0003, 0.0005)
        return try! CameraCalibration(
            name: "builtin-phone", model: .opencv5,
            cameraMatrix: [f, 0, cx, 0, f, cy, 0, 0, 1],
            distortion: [0.05, -0.12, p1, p2, 0.06], imageWidth: width, imageHeight: height)
    }
}

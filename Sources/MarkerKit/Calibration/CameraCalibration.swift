import CVBridge
import Foundation

/// A camera's intrinsics: the 3x3 camera matrix and OpenCV's distortion coefficients (k1 k2 p1 p2 [k3
/// [k4 k5 k6 [s1 s2 s3 s4 [tx ty]]]]), with the image size they were calibrated at (0 when unknown).
public struct CameraCalibration: Sendable, Equatable {
    public var name: String
    public var cameraMatrix: [Double] // row-major 3x3
    public var distortion: [Double]
    public var imageWidth: Int
    public var imageHeight: Int

    public init(name: String, cameraMatrix: [Double], distortion: [Double], imageWidth: Int, imageHeight: Int) throws {
        guard cameraMatrix.count == 9 else { throw MarkerKitError.badInput("calibration '\(name)': the camera matrix needs 9 values") }
        guard [0, 4, 5, 8, 12, 14].contains(distortion.count) else {
            throw MarkerKitError.badInput("calibration '\(name)': \(distortion.count) distortion coefficients (OpenCV takes 4, 5, 8, 12 or 14)")
        }
        let fx = cameraMatrix[0], fy = cameraMatrix[4]
        guard (cameraMatrix + distortion).allSatisfy(\.isFinite) else {
            throw MarkerKitError.badInput("calibration '\(name)': NaN or infinite values")
        }
        guard fx > 0, fy > 0, cameraMatrix[8] == 1 else {
            throw MarkerKitError.badInput("calibration '\(name)': focal lengths must be positive (fx \(fx), fy \(fy)) and K[2][2] must be 1")
        }
        self.name = name
        self.cameraMatrix = cameraMatrix
        self.distortion = distortion
        self.imageWidth = imageWidth
        self.imageHeight = imageHeight
    }

    public var fx: Double { cameraMatrix[0] }
    public var fy: Double { cameraMatrix[4] }
    public var cx: Double { cameraMatrix[2] }
    public var cy: Double { cameraMatrix[5] }

    /// Reads `camera_matrix` and `distortion_coefficients` from an OpenCV FileStorage file (YAML, XML or
    /// JSON), as OpenCV's calibration sample writes them.
    public static func read(from url: URL) throws -> CameraCalibration {
        guard FileManager.default.isReadableFile(atPath: url.path) else {
            throw MarkerKitError.missingInput("cannot read calibration '\(url.path)': no such file")
        }
        var k = [Double](repeating: 0, count: 9)
        var d = [Double](repeating: 0, count: 14)
        var count: Int32 = 0, width: Int32 = 0, height: Int32 = 0
        guard cvb_read_camera(url.path, &k, &d, &count, &width, &height) >= 0 else {
            throw MarkerKitError.badInput("calibration '\(url.path)' is malformed: \(String(cString: cvb_last_error()))")
        }
        do {
            return try CameraCalibration(name: url.deletingPathExtension().lastPathComponent, cameraMatrix: k,
                                         distortion: Array(d.prefix(Int(count))), imageWidth: Int(width), imageHeight: Int(height))
        } catch let error as MarkerKitError {
            throw MarkerKitError.badInput("calibration '\(url.path)' is malformed: \(error.description)")
        }
    }
}

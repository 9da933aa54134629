import CVBridge

/// Removes lens distortion from images of a calibrated camera. `alpha` 0 keeps only valid pixels
/// (no black border), 1 keeps every source pixel (OpenCV's getOptimalNewCameraMatrix).
public struct Undistorter: Sendable {
    public let calibration: CameraCalibration
    public let alpha: Double

    public init(calibration: CameraCalibration, alpha: Double) throws {
        guard alpha.isFinite, (0...1).contains(alpha) else { throw MarkerKitError.invalidArgument("alpha \(alpha) is outside 0..1") }
        self.calibration = calibration
        self.alpha = alpha
    }

    /// The camera matrix of undistorted images of this size.
    public func newCameraMatrix(width: Int, height: Int) throws -> [Double] {
        try newCameraMatrix(try calibration.fitted(width: width, height: height), width: width, height: height)
    }

    private func newCameraMatrix(_ c: CameraCalibration, width: Int, height: Int) throws -> [Double] {
        var k = [Double](repeating: 0, count: 9)
        try Bridge.check(cvb_optimal_camera_matrix(c.cameraMatrix, c.distortion, Int32(c.distortion.count), c.bridgeModel,
                                                   Int32(width), Int32(height), alpha, &k))
        return k
    }

    /// The picture without the lens's distortion; a picture of another size than the calibration's is
    /// undistorted with the intrinsics scaled when it has the same aspect ratio, else refused
    /// (`CalibrationFit`).
    public func undistort(_ frame: Frame) throws -> Frame {
        let c = try calibration.fitted(width: frame.width, height: frame.height)
        let k = try newCameraMatrix(c, width: frame.width, height: frame.height)
        var out = [UInt8](repeating: 0, count: frame.bytes.count)
        let status = frame.bytes.withUnsafeBufferPointer { source in
            out.withUnsafeMutableBufferPointer { target in
                cvb_undistort(source.baseAddress, Int32(frame.width), Int32(frame.height), Int32(frame.stride),
                              Int32(frame.format.channels), c.cameraMatrix, c.distortion, Int32(c.distortion.count),
                              c.bridgeModel, k, target.baseAddress)
            }
        }
        try Bridge.check(status)
        return Frame(width: frame.width, height: frame.height, stride: frame.stride, format: frame.format, bytes: out)
    }
}

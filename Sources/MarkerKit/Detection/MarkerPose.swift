import CVBridge

/// A marker's pose in camera coordinates (OpenCV's marker frame: x right, y up, z out of the marker,
/// origin at its centre): a Rodrigues rotation vector and a translation in the marker size's unit.
public struct MarkerPose: Sendable, Equatable {
    public var rvec: [Double]
    public var tvec: [Double]
}

/// Pose by PnP for square markers (OpenCV's solvePnP, SOLVEPNP_IPPE_SQUARE).
public struct MarkerPoseEstimator: Sendable {
    public let calibration: CameraCalibration
    /// The marker side, in the unit the poses are reported in.
    public let side: Double

    public init(calibration: CameraCalibration, side: Double) {
        self.calibration = calibration
        self.side = side
    }

    public func pose(of marker: MarkerDetection) throws -> MarkerPose {
        let corners = marker.corners.flatMap { [$0.x, $0.y] }
        var r = [Double](repeating: 0, count: 3), t = [Double](repeating: 0, count: 3)
        let status = cvb_solve_pnp_square(corners, side, calibration.cameraMatrix, calibration.distortion,
                                          Int32(calibration.distortion.count), calibration.bridgeModel, &r, &t)
        guard status >= 0 else { throw MarkerKitError.internalFailure(String(cString: cvb_last_error())) }
        return MarkerPose(rvec: r, tvec: t)
    }

    /// Projects points given in the marker's frame into the image.
    public func project(_ points: [(Double, Double, Double)], pose: MarkerPose) throws -> [Point2] {
        let object = points.flatMap { [$0.0, $0.1, $0.2] }
        var image = [Double](repeating: 0, count: 2 * points.count)
        let status = cvb_project_model(object, Int32(points.count), pose.rvec, pose.tvec, calibration.cameraMatrix,
                                       calibration.distortion, Int32(calibration.distortion.count), calibration.bridgeModel, &image)
        guard status >= 0 else { throw MarkerKitError.internalFailure(String(cString: cvb_last_error())) }
        return (0..<points.count).map { Point2(x: image[2 * $0], y: image[2 * $0 + 1]) }
    }
}

extension CameraCalibration {
    /// The model as the bridge names it (pinhole models share one).
    var bridgeModel: Int32 { model == .fisheye ? Int32(CVB_MODEL_FISHEYE) : Int32(CVB_MODEL_OPENCV5) }
}

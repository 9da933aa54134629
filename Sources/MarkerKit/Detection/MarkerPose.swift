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
        let c = marker.quad
        // Corners and results in tuples: the only arrays made are the pose's own.
        let corners = (c[0].x, c[0].y, c[1].x, c[1].y, c[2].x, c[2].y, c[3].x, c[3].y)
        var pose = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
        let status = withUnsafeBytes(of: corners) { input in
            withUnsafeMutableBytes(of: &pose) { output in
                let values = output.bindMemory(to: Double.self).baseAddress!
                return cvb_solve_pnp_square(input.bindMemory(to: Double.self).baseAddress, side, calibration.cameraMatrix,
                                            calibration.distortion, Int32(calibration.distortion.count), calibration.bridgeModel,
                                            values, values + 3)
            }
        }
        guard status >= 0 else { throw MarkerKitError.internalFailure(String(cString: cvb_last_error())) }
        return MarkerPose(rvec: [pose.0, pose.1, pose.2], tvec: [pose.3, pose.4, pose.5])
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

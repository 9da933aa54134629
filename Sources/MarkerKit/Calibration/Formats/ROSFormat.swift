import CVBridge
import Foundation

/// ROS sensor_msgs/CameraInfo YAML, as camera_calibration_parsers writes it. The projection matrix is
/// the camera matrix after undistortion with alpha 0, as ROS's monocular calibrator sets it.
enum ROSFormat {
    static func distortionModel(_ model: CameraCalibration.Model) -> String {
        switch model {
        case .pinhole, .opencv4, .opencv5: return "plumb_bob"
        case .opencv8: return "rational_polynomial"
        case .fisheye: return "equidistant"
        }
    }

    /// One camera; in a rectified pair (`RigFormat.ros`) with its rectification R and projection P (3x4,
    /// Tx in metres), else R the identity and P the camera matrix after undistortion with alpha 0.
    static func encode(_ c: CameraCalibration, rectification: [Double] = [1, 0, 0, 0, 1, 0, 0, 0, 1], projection: [Double]? = nil) throws -> Data {
        try requireExportable(c, format: "ROS camera_info", skew: true)
        // plumb_bob always has five coefficients.
        let d = c.model == .pinhole ? [0, 0, 0, 0, 0] : (c.model == .opencv4 ? c.distortion + [0] : c.distortion)
        var p = [Double](repeating: 0, count: 9)
        try Bridge.check(cvb_optimal_camera_matrix(c.cameraMatrix, c.distortion, Int32(c.distortion.count), c.bridgeModel,
                                                   Int32(c.imageWidth), Int32(c.imageHeight), 0, &p))
        let projection = projection ?? [p[0], p[1], p[2], 0, p[3], p[4], p[5], 0, p[6], p[7], p[8], 0]
        let text = """
        # ROS camera_info, written by \(MarkerKitVersion.generator)
        \(cameraComment(c))image_width: \(c.imageWidth)
        image_height: \(c.imageHeight)
        camera_name: \(yamlString(c.name))
        camera_matrix:
          rows: 3
          cols: 3
          data: \(flowList(c.cameraMatrix))
        distortion_model: \(distortionModel(c.model))
        distortion_coefficients:
          rows: 1
          cols: \(d.count)
          data: \(flowList(d))
        rectification_matrix:
          rows: 3
          cols: 3
          data: \(flowList(rectification))
        projection_matrix:
          rows: 3
          cols: 4
          data: \(flowList(projection))

        """
        return Data(text.utf8)
    }

    static func decode(_ data: Data, name: String) throws -> CameraCalibration {
        let fields = try Fields.yaml(data, what: "camera_info")
        let k = try fields.fields("camera_matrix").numbers("data")
        let d = try fields.fields("distortion_coefficients").numbers("data")
        let modelName = try fields.string("distortion_model")
        let model: CameraCalibration.Model
        switch modelName {
        case "plumb_bob":
            guard d.count == 5 else { throw MarkerKitError.badInput("plumb_bob needs 5 coefficients, not \(d.count)") }
            model = .opencv5
        case "rational_polynomial":
            guard d.count == 8 else { throw MarkerKitError.badInput("rational_polynomial needs 8 coefficients, not \(d.count)") }
            model = .opencv8
        case "equidistant":
            guard d.count == 4 else { throw MarkerKitError.badInput("equidistant needs 4 coefficients, not \(d.count)") }
            model = .fisheye
        default:
            throw MarkerKitError.badInput("unknown distortion_model '\(modelName)' (plumb_bob, rational_polynomial, equidistant)")
        }
        return try CameraCalibration(name: (try? fields.string("camera_name")) ?? name, model: model, cameraMatrix: k,
                                     distortion: d, imageWidth: try fields.integer("image_width"),
                                     imageHeight: try fields.integer("image_height"))
    }
}

/// A YAML scalar that stays a string (quoted when it could read as something else).
func yamlString(_ s: String) -> String {
    let plain = !s.isEmpty && s.allSatisfy { $0.isLetter || $0.isNumber || "-_.".contains($0) } && Double(s) == nil
        && !["true", "false", "null", "yes", "no", "on", "off", "~"].contains(s.lowercased())
    if plain { return s }
    return "\"" + s.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
}

import Foundation

/// Kalibr camchain YAML, camera `cam0`: pinhole with radtan (k1 k2 r1 r2), equidistant (k1..k4) or none.
/// Kalibr has no k3 and no skew; a calibration that needs them is refused, never cut.
enum KalibrFormat {
    static func encode(_ c: CameraCalibration) throws -> Data {
        let text = "# Kalibr camchain, written by \(MarkerKitVersion.generator) from calibration \(c.name)\n" + cameraComment(c) + (try block(c, key: "cam0"))
        return Data((text + "\n").utf8)
    }

    /// One camera's entry, `key:` and its fields (with `extra` lines, such as T_cn_cnm1, first).
    static func block(_ c: CameraCalibration, key: String, extra: [String] = []) throws -> String {
        try requireExportable(c, format: "Kalibr", skew: false)
        let model: String, coefficients: [Double]
        switch c.model {
        case .pinhole: (model, coefficients) = ("none", [])
        case .opencv4: (model, coefficients) = ("radtan", c.distortion)
        case .opencv5:
            guard c.distortion[4] == 0 else {
                throw MarkerKitError.advised(.invalidArgument("Kalibr's radtan model has k1 k2 p1 p2 only; this calibration has k3 = \(c.distortion[4])"), .withoutK3)
            }
            (model, coefficients) = ("radtan", Array(c.distortion.prefix(4)))
        case .opencv8:
            throw MarkerKitError.invalidArgument("Kalibr has no rational (8-coefficient) model: export to opencv-yaml, ros, colmap or mrcal")
        case .fisheye: (model, coefficients) = ("equidistant", c.distortion)
        }
        let lines = ["\(key):"] + extra.map { "  " + $0 } + [
            "  camera_model: pinhole",
            "  intrinsics: \(flowList([c.fx, c.fy, c.cx, c.cy]))",
            "  distortion_model: \(model)",
            "  distortion_coeffs: \(flowList(coefficients))",
            "  resolution: [\(c.imageWidth), \(c.imageHeight)]",
        ]
        return lines.joined(separator: "\n") + "\n"
    }

    static func decode(_ data: Data, name: String) throws -> CameraCalibration {
        try camera(try Fields.yaml(data, what: "camchain").fields("cam0"), name: name)
    }

    static func camera(_ camera: Fields, name: String) throws -> CameraCalibration {
        let cameraModel = try camera.string("camera_model")
        guard cameraModel == "pinhole" else { throw MarkerKitError.badInput("camera_model '\(cameraModel)' is not supported (pinhole only)") }
        let intrinsics = try camera.numbers("intrinsics")
        guard intrinsics.count == 4 else { throw MarkerKitError.badInput("intrinsics needs fu fv pu pv") }
        let coefficients = camera.has("distortion_coeffs") ? try camera.numbers("distortion_coeffs") : []
        let resolution = try camera.numbers("resolution")
        guard resolution.count == 2 else { throw MarkerKitError.badInput("resolution needs width and height") }
        let distortionModel = camera.has("distortion_model") ? try camera.string("distortion_model") : "none"
        let model: CameraCalibration.Model
        switch distortionModel {
        case "radtan": model = .opencv4
        case "equidistant": model = .fisheye
        case "none": model = .pinhole
        default: throw MarkerKitError.badInput("distortion_model '\(distortionModel)' is not supported (radtan, equidistant, none)")
        }
        return try CameraCalibration(name: name, model: model,
                                     cameraMatrix: [intrinsics[0], 0, intrinsics[2], 0, intrinsics[1], intrinsics[3], 0, 0, 1],
                                     distortion: coefficients, imageWidth: try wholeNumber(resolution[0], "resolution"), imageHeight: try wholeNumber(resolution[1], "resolution"))
    }
}

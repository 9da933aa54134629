import Foundation

/// COLMAP `cameras.txt`: one camera line, the model chosen by what the calibration holds: PINHOLE,
/// OPENCV (k1 k2 p1 p2), FULL_OPENCV (k1 k2 p1 p2 k3 k4 k5 k6) or OPENCV_FISHEYE (k1 k2 k3 k4).
enum COLMAPFormat {
    static func encode(_ c: CameraCalibration) throws -> Data {
        try requireExportable(c, format: "COLMAP", skew: false)
        let model: String, extra: [Double]
        switch c.model {
        case .pinhole: (model, extra) = ("PINHOLE", [])
        case .opencv4: (model, extra) = ("OPENCV", c.distortion)
        case .opencv5:
            (model, extra) = c.distortion[4] == 0 ? ("OPENCV", Array(c.distortion.prefix(4))) : ("FULL_OPENCV", c.distortion + [0, 0, 0])
        case .opencv8: (model, extra) = ("FULL_OPENCV", c.distortion)
        case .fisheye: (model, extra) = ("OPENCV_FISHEYE", c.distortion)
        }
        let params = ([c.fx, c.fy, c.cx, c.cy] + extra).map(\.exact).joined(separator: " ")
        let text = """
        # Camera list with one line of data per camera:
        #   CAMERA_ID, MODEL, WIDTH, HEIGHT, PARAMS[]
        # Number of cameras: 1
        # Written by \(MarkerKitVersion.generator) from calibration \(c.name)
        \(cameraComment(c))1 \(model) \(c.imageWidth) \(c.imageHeight) \(params)

        """
        return Data(text.utf8)
    }

    static func decode(_ data: Data, name: String) throws -> CameraCalibration {
        let lines = String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline)
            .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty && !$0.hasPrefix("#") }
        guard let line = lines.first else { throw MarkerKitError.badInput("no camera line") }
        let fields = line.split(separator: " ").map(String.init)
        guard fields.count >= 5, let width = Int(fields[2]), let height = Int(fields[3]) else {
            throw MarkerKitError.badInput("a camera line is CAMERA_ID MODEL WIDTH HEIGHT PARAMS...")
        }
        let params = try fields.dropFirst(4).map { text -> Double in
            guard let value = Double(text) else { throw MarkerKitError.badInput("'\(text)' is not a number") }
            return value
        }
        func need(_ n: Int) throws {
            guard params.count == n else { throw MarkerKitError.badInput("\(fields[1]) takes \(n) parameters, not \(params.count)") }
        }
        func matrix(_ fx: Double, _ fy: Double, _ cx: Double, _ cy: Double) -> [Double] { [fx, 0, cx, 0, fy, cy, 0, 0, 1] }
        let model: CameraCalibration.Model, k: [Double], d: [Double]
        switch fields[1] {
        case "SIMPLE_PINHOLE": try need(3); (model, k, d) = (.pinhole, matrix(params[0], params[0], params[1], params[2]), [])
        case "PINHOLE": try need(4); (model, k, d) = (.pinhole, matrix(params[0], params[1], params[2], params[3]), [])
        case "SIMPLE_RADIAL": try need(4); (model, k, d) = (.opencv4, matrix(params[0], params[0], params[1], params[2]), [params[3], 0, 0, 0])
        case "RADIAL": try need(5); (model, k, d) = (.opencv4, matrix(params[0], params[0], params[1], params[2]), [params[3], params[4], 0, 0])
        case "OPENCV": try need(8); (model, k, d) = (.opencv4, matrix(params[0], params[1], params[2], params[3]), Array(params[4...]))
        case "FULL_OPENCV":
            try need(12)
            let rational = Array(params[4...])
            let isFive = rational[5] == 0 && rational[6] == 0 && rational[7] == 0
            (model, k, d) = (isFive ? .opencv5 : .opencv8, matrix(params[0], params[1], params[2], params[3]),
                             isFive ? Array(rational.prefix(5)) : rational)
        case "OPENCV_FISHEYE": try need(8); (model, k, d) = (.fisheye, matrix(params[0], params[1], params[2], params[3]), Array(params[4...]))
        default: throw MarkerKitError.badInput("COLMAP model '\(fields[1])' is not supported")
        }
        return try CameraCalibration(name: name, model: model, cameraMatrix: k, distortion: d, imageWidth: width, imageHeight: height)
    }
}

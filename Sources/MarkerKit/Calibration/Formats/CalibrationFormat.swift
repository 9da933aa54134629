import Foundation

/// The calibration file formats MarkerKit writes and reads.
public enum CalibrationFormat: String, Sendable, CaseIterable {
    /// OpenCV FileStorage YAML with the keys of OpenCV's calibration sample: MarkerKit's own store format.
    case opencvYAML = "opencv-yaml"
    case opencvXML = "opencv-xml"
    /// ROS sensor_msgs/CameraInfo YAML (camera_calibration_parsers).
    case ros
    /// Kalibr camchain YAML (`cam0`).
    case kalibr
    /// COLMAP cameras.txt.
    case colmap
    /// mrcal .cameramodel.
    case mrcal
    case json

    public static var names: String { allCases.map(\.rawValue).joined(separator: ", ") }

    public init(name: String) throws {
        guard let format = CalibrationFormat(rawValue: name.lowercased()) else {
            throw MarkerKitError.invalidArgument("unknown format '\(name)' (formats: \(CalibrationFormat.names))")
        }
        self = format
    }

    /// What the format is, in a few words ("camera_info YAML").
    public var summary: String {
        switch self {
        case .opencvYAML, .opencvXML: "cv::FileStorage"
        case .ros: "camera_info YAML"
        case .kalibr: "camchain cam0"
        case .colmap: "cameras.txt"
        case .mrcal: ".cameramodel"
        case .json: "MarkerKit's JSON"
        }
    }

    /// Every format with its summary: "opencv-yaml (cv::FileStorage), ..., json (MarkerKit's JSON)".
    public static var described: String { allCases.map { "\($0.rawValue) (\($0.summary))" }.joined(separator: ", ") }

    /// The usual file extension.
    public var fileExtension: String {
        switch self {
        case .opencvYAML, .ros, .kalibr: return "yaml"
        case .opencvXML: return "xml"
        case .colmap: return "txt"
        case .mrcal: return "cameramodel"
        case .json: return "json"
        }
    }

    /// The format of a file from its extension and first bytes.
    public static func guess(url: URL, data: Data) -> CalibrationFormat {
        let text = String(decoding: data.prefix(4096), as: UTF8.self)
        switch url.pathExtension.lowercased() {
        case "xml": return .opencvXML
        case "json": return .json
        case "cameramodel": return .mrcal
        case "txt": return .colmap
        default: break
        }
        if text.hasPrefix("%YAML:1.0") || text.contains("!!opencv-matrix") { return .opencvYAML }
        if text.contains("<opencv_storage>") { return .opencvXML }
        if text.contains("cam0:") && text.contains("camera_model") { return .kalibr }
        if text.contains("distortion_model") && text.contains("projection_matrix") { return .ros }
        if text.contains("'lensmodel'") || text.contains("\"lensmodel\"") { return .mrcal }
        if text.trimmingCharacters(in: .whitespacesAndNewlines).hasPrefix("{") { return .json }
        return .opencvYAML
    }

    public func encode(_ calibration: CameraCalibration) throws -> Data {
        switch self {
        case .opencvYAML: return try OpenCVStorageFormat.encode(calibration, xml: false)
        case .opencvXML: return try OpenCVStorageFormat.encode(calibration, xml: true)
        case .ros: return try ROSFormat.encode(calibration)
        case .kalibr: return try KalibrFormat.encode(calibration)
        case .colmap: return try COLMAPFormat.encode(calibration)
        case .mrcal: return try MrcalFormat.encode(calibration)
        case .json: return try JSONCalibrationFormat.encode(calibration)
        }
    }

    public func decode(_ data: Data, name: String) throws -> CameraCalibration {
        switch self {
        case .opencvYAML, .opencvXML: return try OpenCVStorageFormat.decode(data, name: name)
        case .ros: return try ROSFormat.decode(data, name: name)
        case .kalibr: return try KalibrFormat.decode(data, name: name)
        case .colmap: return try COLMAPFormat.decode(data, name: name)
        case .mrcal: return try MrcalFormat.decode(data, name: name)
        case .json: return try JSONCalibrationFormat.decode(data, name: name)
        }
    }
}

extension Double {
    /// The shortest text that reads back to exactly this double.
    var exact: String { "\(self)" }
}

/// What every exporter asks of a calibration before writing: the image size, and no skew when the
/// target format has none. A format that cannot express a term says so instead of dropping it.
func requireExportable(_ c: CameraCalibration, format: String, skew: Bool) throws {
    if !skew, c.skew != 0 {
        throw MarkerKitError.invalidArgument("\(format) has no skew; this calibration has \(c.skew)")
    }
    guard c.imageWidth > 0, c.imageHeight > 0 else {
        throw MarkerKitError.invalidArgument("\(format) needs the image size, which this calibration lacks")
    }
}

/// The camera a calibration was taken with, as a comment line for the formats that have no field for it
/// (ROS, Kalibr, COLMAP, mrcal), or "" without a camera. Readers of those formats skip comments: the state
/// is kept for people, not read back.
func cameraComment(_ c: CameraCalibration) -> String {
    guard let camera = c.camera else { return "" }
    return "# taken with \(camera.summary)" + (camera.stablePath.map { " (\($0))" } ?? "") + "\n"
}

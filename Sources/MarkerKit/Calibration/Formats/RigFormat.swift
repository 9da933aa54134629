import CVBridge
import Foundation

/// The formats a rig is exported to and imported from, each as its own tool reads it:
/// - `opencv-stereo`: one cv::FileStorage file (YAML or XML) with the keys OpenCV's stereo_calib.cpp writes,
///   M1 D1 M2 D2 R T E F R1 R2 P1 P2 Q, for a pair, lengths in the rig's units (`units`).
/// - `ros`: one camera_info YAML per camera of a pair, `R` and `P` of the rectified pair as
///   stereo_image_proc expects (the second camera's P holds Tx = -fx' B, B in metres).
/// - `kalibr`: one camchain YAML, cam0..camN, each after the first with `T_cn_cnm1` (metres).
/// - `mrcal`: one .cameramodel per camera with `extrinsics` rt_cam_ref, camera 0 the reference (metres).
public enum RigFormat: String, Sendable, CaseIterable {
    case opencvStereo = "opencv-stereo"
    case ros
    case kalibr
    case mrcal

    public static var names: String { allCases.map(\.rawValue).joined(separator: ", ") }

    public init(name: String) throws {
        guard let format = RigFormat(rawValue: name.lowercased()) else {
            throw MarkerKitError.invalidArgument("unknown rig format '\(name.prefix(40))' (rig formats: \(RigFormat.names))")
        }
        self = format
    }

    /// Whether the format writes one file per camera (into a folder) rather than one file.
    public var perCamera: Bool { self == .ros || self == .mrcal }

    /// Whether the format holds a pair only (its rectification).
    public var pairOnly: Bool { self == .opencvStereo || self == .ros }

    /// The files of `rig` in this format: (file name, contents); one file for `opencv-stereo` (`file` names
    /// it, .xml for XML) and `kalibr`, one per camera (`<camera>.yaml`, `<camera>.cameramodel`) otherwise.
    /// A pair-only format takes cameras `pair` of the rig.
    public func encode(_ rig: CameraRig, pair: (Int, Int) = (0, 1), file: String = "stereo.yaml") throws -> [(String, Data)] {
        switch self {
        case .opencvStereo:
            return [(file, try OpenCVStereoFormat.encode(rig, pair: pair, xml: file.lowercased().hasSuffix(".xml")))]
        case .ros:
            let r = try StereoRectification(rig: rig, first: pair.0, second: pair.1)
            let metres = try Self.metres(rig)
            return try [(pair.0, r.r1, r.p1), (pair.1, r.r2, r.p2)].map { c, rotation, projection in
                var p = projection
                p[3] *= metres
                p[7] *= metres
                return ("\(Self.stem(rig, c)).yaml", try ROSFormat.encode(rig.cameras[c], rectification: rotation, projection: p))
            }
        case .kalibr:
            return [(file, try KalibrFormat.encode(rig, metres: try Self.metres(rig)))]
        case .mrcal:
            let metres = try Self.metres(rig)
            return try rig.cameras.indices.map { c in
                let e = rig.extrinsics[c]
                return ("\(Self.stem(rig, c)).cameramodel", try MrcalFormat.encode(rig.cameras[c], extrinsics: e.rvec + e.tvec.map { $0 * metres }))
            }
        }
    }

    /// A camera's file name without extension: its name when the store would take it as a name (no `/`,
    /// nothing invisible), else `camera<index>`; a second camera of the same name gets its index added.
    static func stem(_ rig: CameraRig, _ c: Int) -> String {
        let stems = rig.cameras.indices.map { (try? CalibrationStore.normalized(name: rig.cameras[$0].name)) ?? "camera\($0)" }
        return stems[..<c].contains(stems[c]) ? "\(stems[c])-\(c)" : stems[c]
    }

    /// Metres per unit of the rig's lengths; a rig in unknown units cannot be given in metres.
    static func metres(_ rig: CameraRig) throws -> Double {
        guard let unit = Length.Unit(rawValue: rig.units), unit != .pt else {
            throw MarkerKitError.invalidArgument("the rig's lengths are in '\(rig.units)', which cannot be given in metres (mm, cm, m or in)")
        }
        return unit.millimetres / 1000
    }

    /// A rig from its files in this format (as `encode` writes them; other tools' files with the same keys),
    /// lengths in mm for the formats in metres.
    public func decode(_ files: [(name: String, data: Data)], rigName: String) throws -> CameraRig {
        switch self {
        case .opencvStereo:
            guard files.count == 1 else { throw MarkerKitError.invalidArgument("opencv-stereo is one file, not \(files.count)") }
            return try OpenCVStereoFormat.decode(files[0].data, name: rigName)
        case .kalibr:
            guard files.count == 1 else { throw MarkerKitError.invalidArgument("a Kalibr camchain is one file, not \(files.count)") }
            return try KalibrFormat.decodeRig(files[0].data, name: rigName)
        case .ros:
            guard files.count == 2 else { throw MarkerKitError.invalidArgument("a ROS stereo pair is two camera_info files (first, second), not \(files.count)") }
            return try ROSFormat.decodePair(files, name: rigName)
        case .mrcal:
            guard files.count >= 2 else { throw MarkerKitError.invalidArgument("a rig in mrcal is one .cameramodel per camera, 2 or more, not \(files.count)") }
            return try MrcalFormat.decodeRig(files, name: rigName)
        }
    }

    /// A rig without covariance (an import): its cameras and poses, lengths in `units`.
    static func rig(name: String, cameras: [CameraCalibration], extrinsics: [Pose3D], units: String) throws -> CameraRig {
        let e = 6 * (cameras.count - 1)
        return try CameraRig(name: name, cameras: cameras, extrinsics: extrinsics, units: units,
                             extrinsicCovariance: [Double](repeating: 0, count: e * e), covariance: [], noise: 0,
                             cameraRMS: [Double](repeating: 0, count: cameras.count), pairErrors: [], views: 0, calibrationTime: "")
    }
}

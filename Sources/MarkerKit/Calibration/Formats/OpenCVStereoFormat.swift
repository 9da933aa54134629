import CVBridge
import Foundation

/// A pair of a rig as OpenCV's stereo_calib.cpp writes it (its intrinsics.yml and extrinsics.yml in one
/// cv::FileStorage file): image_width, image_height, M1 D1 M2 D2 (camera matrices and distortion), R T
/// (x_2 = R x_1 + T), E F (essential and fundamental matrices), R1 R2 P1 P2 Q (cv::stereoRectify with zero
/// disparity, alpha 0), plus units, model and camera_name_1, camera_name_2, which OpenCV's readers ignore.
enum OpenCVStereoFormat {
    static func encode(_ rig: CameraRig, pair: (Int, Int), xml: Bool) throws -> Data {
        let a = rig.cameras[pair.0], b = rig.cameras[pair.1]
        let rectification = try StereoRectification(rig: rig, first: pair.0, second: pair.1)
        let relative = RigMath.compose(RigMath.inverse(rig.extrinsics[pair.0]), then: rig.extrinsics[pair.1])
        let r = relative.rotation, t = relative.tvec
        let e = multiply(skew(t), r, 3)
        let f = multiply(multiply(transpose(inverse3(b.cameraMatrix)), e, 3), inverse3(a.cameraMatrix), 3)
        var storage: OpaquePointer?
        try check(cvb_storage_open_write(xml ? CVB_STORAGE_XML : CVB_STORAGE_YAML, &storage))
        defer { cvb_storage_close(storage) }
        try check(cvb_storage_write_comment(storage, "Stereo calibration of rig \(rig.name) by \(MarkerKitVersion.generator), keys as OpenCV's stereo_calib.cpp. Lengths in \(rig.units) (key units)."))
        try check(cvb_storage_write_int(storage, "image_width", Int32(a.imageWidth)))
        try check(cvb_storage_write_int(storage, "image_height", Int32(a.imageHeight)))
        try check(cvb_storage_write_string(storage, "units", rig.units))
        try check(cvb_storage_write_string(storage, "model", a.model.rawValue))
        try check(cvb_storage_write_string(storage, "camera_name_1", a.name))
        try check(cvb_storage_write_string(storage, "camera_name_2", b.name))
        for (key, values, rows, cols) in [("M1", a.cameraMatrix, 3, 3), ("D1", a.distortion, 1, a.distortion.count), ("M2", b.cameraMatrix, 3, 3),
                                          ("D2", b.distortion, 1, b.distortion.count), ("R", r, 3, 3), ("T", t, 3, 1), ("E", e, 3, 3), ("F", f, 3, 3),
                                          ("R1", rectification.r1, 3, 3), ("R2", rectification.r2, 3, 3), ("P1", rectification.p1, 3, 4),
                                          ("P2", rectification.p2, 3, 4), ("Q", rectification.q, 4, 4)] where !values.isEmpty {
            try check(cvb_storage_write_matrix(storage, key, values, Int32(rows), Int32(cols)))
        }
        var text = cvb_image()
        try check(cvb_storage_finish(storage, &text))
        defer { cvb_image_release(&text) }
        return Data(bytes: text.data, count: Int(text.width))
    }

    static func decode(_ data: Data, name: String) throws -> CameraRig {
        let storage = try OpenCVStorageFormat.open(data)
        defer { cvb_storage_close(storage) }
        let reader = OpenCVStorageFormat.Reader(storage: storage)
        let names = [try reader.string("camera_name_1") ?? "left", try reader.string("camera_name_2") ?? "right"]
        let width = try wholeNumber(reader.real("image_width") ?? 0, "image_width"), height = try wholeNumber(reader.real("image_height") ?? 0, "image_height")
        var cameras: [CameraCalibration] = []
        for (i, key) in ["1", "2"].enumerated() {
            guard let (k, rows, cols) = try reader.matrix("M" + key), rows == 3, cols == 3 else { throw MarkerKitError.badInput("no 3x3 M\(key)") }
            let d = try reader.matrix("D" + key)?.values ?? []
            let model: CameraCalibration.Model
            if let named = try reader.string("model") {
                guard let m = CameraCalibration.Model(rawValue: named) else { throw MarkerKitError.badInput("unknown model '\(named.prefix(40))'") }
                model = m
            } else {
                guard let m = CameraCalibration.Model.pinholeModel(coefficients: d.count) else {
                    throw MarkerKitError.badInput("D\(key) has \(d.count) coefficients: MarkerKit takes 0, 4, 5 or 8")
                }
                model = m
            }
            cameras.append(try CameraCalibration(name: i < names.count ? names[i] : "camera\(i)", model: model, cameraMatrix: k, distortion: d,
                                                 imageWidth: width, imageHeight: height))
        }
        guard let (r, rr, rc) = try reader.matrix("R"), rr == 3, rc == 3, r.allSatisfy(\.isFinite), RigStorageFormat.isRotation(r) else {
            throw MarkerKitError.badInput("R must be a 3x3 rotation")
        }
        guard let (t, tr, tc) = try reader.matrix("T"), tr * tc == 3, t.allSatisfy(\.isFinite) else { throw MarkerKitError.badInput("T must hold 3 numbers") }
        return try RigFormat.rig(name: name, cameras: cameras, extrinsics: [Pose3D(rvec: [0, 0, 0], tvec: [0, 0, 0]), Pose3D(rvec: Pose3D.rvec(from: r), tvec: t)],
                                 units: try reader.string("units") ?? "")
    }

    static func skew(_ t: [Double]) -> [Double] { [0, -t[2], t[1], t[2], 0, -t[0], -t[1], t[0], 0] }

    static func transpose(_ m: [Double]) -> [Double] { (0..<9).map { m[($0 % 3) * 3 + $0 / 3] } }

    static func multiply(_ a: [Double], _ b: [Double], _ n: Int) -> [Double] {
        (0..<(n * n)).map { i in (0..<n).reduce(0.0) { $0 + a[(i / n) * n + $1] * b[$1 * n + i % n] } }
    }

    /// The inverse of a camera matrix [fx s cx; 0 fy cy; 0 0 1].
    static func inverse3(_ k: [Double]) -> [Double] {
        let fx = k[0], s = k[1], cx = k[2], fy = k[4], cy = k[5]
        return [1 / fx, -s / (fx * fy), (s * cy - cx * fy) / (fx * fy), 0, 1 / fy, -cy / fy, 0, 0, 1]
    }

    static func check(_ status: Int32) throws { try Bridge.check(status, MarkerKitError.badInput) }
}

import CVBridge
import Foundation

/// A rig as one OpenCV FileStorage file (YAML or XML), MarkerKit's store format for rigs: `rig_name`,
/// `rig_cameras`, `units`, `calibration_time`, `nframes`, `observation_noise`, `camera_rms`, `pair_rms`
/// (rows of first, second, RMS, views), then each camera's calibration keys under `camera_<i>_` (those of
/// a single calibration, `OpenCVStorageFormat`), each camera after the first with `camera_<i>_R` and
/// `camera_<i>_T` (x_i = R x_0 + T, as OpenCV's stereo R and T), and `extrinsic_covariance` and
/// `rig_covariance` (`CameraRig`).
public enum RigStorageFormat {
    /// Whether a file's text is a rig (its `rig_cameras` key).
    public static func isRig(_ data: Data) -> Bool {
        let text = String(decoding: data.prefix(4096), as: UTF8.self)
        return text.contains("rig_cameras:") || text.contains("<rig_cameras>")
    }

    public static func encode(_ rig: CameraRig, xml: Bool = false) throws -> Data {
        var storage: OpaquePointer?
        try check(cvb_storage_open_write(xml ? CVB_STORAGE_XML : CVB_STORAGE_YAML, &storage))
        defer { cvb_storage_close(storage) }
        try check(cvb_storage_write_comment(storage, "Camera rig by \(MarkerKitVersion.generator). camera_<i>_R, camera_<i>_T: x_i = R x_0 + T. Lengths in \(rig.units) (key units); pixels otherwise."))
        let n = rig.cameras.count
        try check(cvb_storage_write_string(storage, "rig_name", rig.name))
        try check(cvb_storage_write_int(storage, "rig_cameras", Int32(n)))
        try check(cvb_storage_write_string(storage, "units", rig.units))
        try check(cvb_storage_write_string(storage, "calibration_time", rig.calibrationTime))
        try check(cvb_storage_write_int(storage, "nframes", try OpenCVStorageFormat.int32(rig.views, "nframes")))
        try check(cvb_storage_write_real(storage, "observation_noise", rig.noise))
        try check(cvb_storage_write_matrix(storage, "camera_rms", rig.cameraRMS, Int32(n), 1))
        if !rig.pairErrors.isEmpty {
            let rows = rig.pairErrors.flatMap { [Double($0.first), Double($0.second), $0.rms, Double($0.views)] }
            try check(cvb_storage_write_matrix(storage, "pair_rms", rows, Int32(rig.pairErrors.count), 4))
        }
        let e = Int32(6 * (n - 1))
        try check(cvb_storage_write_matrix(storage, "extrinsic_covariance", rig.extrinsicCovariance, e, e))
        if !rig.covariance.isEmpty {
            let g = Int32(CameraRig.covarianceSize(rig.cameras))
            try check(cvb_storage_write_matrix(storage, "rig_covariance", rig.covariance, g, g))
        }
        for (i, camera) in rig.cameras.enumerated() {
            try check(cvb_storage_set_prefix(storage, "camera_\(i)_"))
            try OpenCVStorageFormat.write(camera, to: storage)
            if i > 0 {
                try check(cvb_storage_write_matrix(storage, "R", rig.extrinsics[i].rotation, 3, 3))
                try check(cvb_storage_write_matrix(storage, "T", rig.extrinsics[i].tvec, 3, 1))
            }
        }
        try check(cvb_storage_set_prefix(storage, ""))
        var text = cvb_image()
        try check(cvb_storage_finish(storage, &text))
        defer { cvb_image_release(&text) }
        return Data(bytes: text.data, count: Int(text.width))
    }

    public static func decode(_ data: Data, name: String) throws -> CameraRig {
        let storage = try OpenCVStorageFormat.open(data)
        defer { cvb_storage_close(storage) }
        let reader = OpenCVStorageFormat.Reader(storage: storage)
        guard let count = try reader.real("rig_cameras"), count >= 2, count <= 64, count == count.rounded() else {
            throw MarkerKitError.badInput("rig_cameras must be a whole number from 2 to 64")
        }
        let n = Int(count)
        var cameras: [CameraCalibration] = [], extrinsics = [Pose3D(rvec: [0, 0, 0], tvec: [0, 0, 0])]
        for i in 0..<n {
            try check(cvb_storage_set_prefix(storage, "camera_\(i)_"))
            do {
                cameras.append(try OpenCVStorageFormat.read(reader, name: "camera\(i)"))
            } catch let error as MarkerKitError {
                // The camera's keys are read without their prefix: say whose they are.
                throw MarkerKitError.badInput("camera \(i) (keys camera_\(i)_...): \(error.description)")
            }
            // A camera alone may come without its size (other tools' files); a rig's are rectified and compared at theirs.
            guard cameras[i].imageWidth > 0, cameras[i].imageHeight > 0 else {
                throw MarkerKitError.badInput("camera_\(i)_image_width and camera_\(i)_image_height must be given, above 0")
            }
            guard i > 0 else { continue }
            guard let (r, rr, rc) = try reader.matrix("R"), rr == 3, rc == 3, let (t, tr, tc) = try reader.matrix("T"), tr * tc == 3 else {
                throw MarkerKitError.badInput("camera_\(i)_R (3x3) and camera_\(i)_T (3x1) are missing")
            }
            guard r.allSatisfy(\.isFinite), isRotation(r) else { throw MarkerKitError.badInput("camera_\(i)_R is not a rotation") }
            extrinsics.append(Pose3D(rvec: Pose3D.rvec(from: r), tvec: t))
        }
        try check(cvb_storage_set_prefix(storage, ""))
        let e = 6 * (n - 1), g = CameraRig.covarianceSize(cameras)
        guard let (cov, cr, cc) = try reader.matrix("extrinsic_covariance"), cr == e, cc == e else {
            throw MarkerKitError.badInput("extrinsic_covariance must be \(e)x\(e)")
        }
        var full: [Double] = []
        if let (values, rows, cols) = try reader.matrix("rig_covariance") {
            guard rows == g, cols == g else { throw MarkerKitError.badInput("rig_covariance must be \(g)x\(g)") }
            full = values
        }
        guard let (rms, rmsRows, _) = try reader.matrix("camera_rms"), rmsRows == n else { throw MarkerKitError.badInput("camera_rms must hold \(n) values") }
        var pairs: [CameraRig.PairError] = []
        if let (values, rows, cols) = try reader.matrix("pair_rms") {
            guard cols == 4 else { throw MarkerKitError.badInput("pair_rms rows are first, second, RMS, views") }
            pairs = try (0..<rows).map { r in
                let row = Array(values[(4 * r)..<(4 * r + 4)])
                return CameraRig.PairError(first: try wholeNumber(row[0], "pair_rms"), second: try wholeNumber(row[1], "pair_rms"), rms: row[2],
                                           views: try wholeNumber(row[3], "pair_rms"))
            }
        }
        return try CameraRig(name: try reader.string("rig_name") ?? name, cameras: cameras, extrinsics: extrinsics,
                             units: try reader.string("units") ?? "", extrinsicCovariance: cov, covariance: full,
                             noise: try reader.real("observation_noise") ?? 0, cameraRMS: rms, pairErrors: pairs,
                             views: try wholeNumber(reader.real("nframes") ?? 0, "nframes"),
                             calibrationTime: try reader.string("calibration_time") ?? "")
    }

    /// R R^T = I and det R = 1, to 1e-6.
    static func isRotation(_ r: [Double]) -> Bool {
        for i in 0..<3 {
            for j in 0..<3 {
                let dot = (0..<3).reduce(0.0) { $0 + r[3 * i + $1] * r[3 * j + $1] }
                if abs(dot - (i == j ? 1 : 0)) > 1e-6 { return false }
            }
        }
        let det = r[0] * (r[4] * r[8] - r[5] * r[7]) - r[1] * (r[3] * r[8] - r[5] * r[6]) + r[2] * (r[3] * r[7] - r[4] * r[6])
        return abs(det - 1) < 1e-6
    }

    static func check(_ status: Int32) throws { try Bridge.check(status, MarkerKitError.badInput) }
}

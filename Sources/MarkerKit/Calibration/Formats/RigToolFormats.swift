import Foundation

// The rig parts of the ROS, Kalibr and mrcal formats (`RigFormat`): their lengths are metres.

extension ROSFormat {
    /// A rectified pair from its two camera_info files (first, second): x_2 = R x_1 + T with R = R2^T R1 and
    /// T = R2^T (P2's Tx/fx', Ty/fy', 0), as stereo_image_proc reads them; lengths to mm.
    static func decodePair(_ files: [(name: String, data: Data)], name: String) throws -> CameraRig {
        var cameras: [CameraCalibration] = [], rotations: [[Double]] = [], projections: [[Double]] = []
        for file in files {
            cameras.append(try decode(file.data, name: file.name))
            let fields = try Fields.yaml(file.data, what: "camera_info")
            let r = try fields.fields("rectification_matrix").numbers("data"), p = try fields.fields("projection_matrix").numbers("data")
            guard r.count == 9, RigStorageFormat.isRotation(r) else { throw MarkerKitError.badInput("\(file.name): rectification_matrix is not a 3x3 rotation") }
            guard p.count == 12, p.allSatisfy(\.isFinite), p[0] > 0, p[5] > 0 else { throw MarkerKitError.badInput("\(file.name): projection_matrix is not a 3x4 projection") }
            rotations.append(r)
            projections.append(p)
        }
        let r1 = rotations[0], r2 = rotations[1], p1 = projections[0], p2 = projections[1]
        let shift = [(p2[3] / p2[0] - p1[3] / p1[0]) * 1000, (p2[7] / p2[5] - p1[7] / p1[5]) * 1000, 0]
        let r2t = OpenCVStereoFormat.transpose(r2)
        let r = OpenCVStereoFormat.multiply(r2t, r1, 3)
        let t = (0..<3).map { i in (0..<3).reduce(0.0) { $0 + r2t[3 * i + $1] * shift[$1] } }
        return try RigFormat.rig(name: name, cameras: cameras, extrinsics: [Pose3D(rvec: [0, 0, 0], tvec: [0, 0, 0]), Pose3D(rvec: Pose3D.rvec(from: r), tvec: t)],
                                 units: "mm")
    }
}

extension KalibrFormat {
    /// Every camera as cam0..camN, each after the first with T_cn_cnm1 (x_n = T x_(n-1), metres) and cam_overlaps.
    static func encode(_ rig: CameraRig, metres: Double) throws -> Data {
        var text = "# Kalibr camchain of rig \(rig.name), written by \(MarkerKitVersion.generator); lengths in metres\n"
        for (n, camera) in rig.cameras.enumerated() {
            var extra = ["rostopic: /\(camera.name)/image_raw"]
            if n > 0 {
                let step = RigMath.compose(RigMath.inverse(rig.extrinsics[n - 1]), then: rig.extrinsics[n])
                let r = step.rotation, t = step.tvec.map { $0 * metres }
                extra = ["T_cn_cnm1:"] + (0..<3).map { "- \(flowList([r[3 * $0], r[3 * $0 + 1], r[3 * $0 + 2], t[$0]]))" } + ["- [0.0, 0.0, 0.0, 1.0]"]
                    + ["cam_overlaps: [\(n - 1)]"] + extra
            }
            text += try block(camera, key: "cam\(n)", extra: extra)
        }
        return Data(text.utf8)
    }

    static func decodeRig(_ data: Data, name: String) throws -> CameraRig {
        let chain = try Fields.yaml(data, what: "camchain")
        var cameras: [CameraCalibration] = [], extrinsics = [Pose3D(rvec: [0, 0, 0], tvec: [0, 0, 0])]
        while chain.has("cam\(cameras.count)"), cameras.count < 64 {
            let n = cameras.count, fields = try chain.fields("cam\(n)")
            let topic = (try? fields.string("rostopic"))?.split(separator: "/").first.map(String.init)
            cameras.append(try camera(fields, name: topic ?? "cam\(n)"))
            guard n > 0 else { continue }
            guard let rows = fields.values["T_cn_cnm1"] as? [Any], rows.count == 4 else { throw MarkerKitError.badInput("cam\(n): T_cn_cnm1 must be 4 rows") }
            let m = try rows.flatMap { row -> [Double] in
                guard let values = row as? [Any], values.count == 4 else { throw MarkerKitError.badInput("cam\(n): T_cn_cnm1 rows hold 4 numbers") }
                return try values.map { guard let v = Fields.double($0), v.isFinite else { throw MarkerKitError.badInput("cam\(n): T_cn_cnm1 holds a non-number") }; return v }
            }
            let r = [m[0], m[1], m[2], m[4], m[5], m[6], m[8], m[9], m[10]]
            guard RigStorageFormat.isRotation(r) else { throw MarkerKitError.badInput("cam\(n): T_cn_cnm1's rotation is not a rotation") }
            let step = Pose3D(rvec: Pose3D.rvec(from: r), tvec: [m[3] * 1000, m[7] * 1000, m[11] * 1000])
            extrinsics.append(RigMath.compose(extrinsics[n - 1], then: step))
        }
        guard cameras.count >= 2 else { throw MarkerKitError.badInput("a rig's camchain has cam0 and cam1 at least") }
        return try RigFormat.rig(name: name, cameras: cameras, extrinsics: extrinsics, units: "mm")
    }
}

extension MrcalFormat {
    /// A rig from one .cameramodel per camera: each camera's pose relative to the first from their
    /// rt_cam_ref extrinsics (metres, to mm).
    static func decodeRig(_ files: [(name: String, data: Data)], name: String) throws -> CameraRig {
        var cameras: [CameraCalibration] = [], fromReference: [Pose3D] = []
        for file in files {
            cameras.append(try decode(file.data, name: file.name))
            let fields = try Fields(try parsePythonLiteral(String(decoding: file.data, as: UTF8.self)), what: "cameramodel")
            let e = try fields.numbers("extrinsics")
            guard e.count == 6, e.allSatisfy(\.isFinite) else { throw MarkerKitError.badInput("\(file.name): extrinsics must be 6 numbers (rt_cam_ref)") }
            fromReference.append(Pose3D(rvec: Array(e[0..<3]), tvec: e[3..<6].map { $0 * 1000 }))
        }
        let toFirst = RigMath.inverse(fromReference[0])
        return try RigFormat.rig(name: name, cameras: cameras, extrinsics: fromReference.map { RigMath.compose(toFirst, then: $0) }, units: "mm")
    }
}

import Foundation
import Testing
@testable import MarkerKit

/// Every rig export is read back by its own tool (cv2.FileStorage, PyYAML with the documented keys, mrcal's
/// Python module) and by MarkerKit's import, equal to the stored rig; the store's rig file round-trips.
@Suite(.serialized) struct RigExportTests {
    /// The sample pair with Kalibr's radtan model (k1 k2 p1 p2), 25 mm squares.
    static let rig = Result { () throws -> CameraRig in
        var calibrator = Calibrator(board: try Checkerboard(innerColumns: 9, innerRows: 6, square: .mm(25)))
        calibrator.model = .opencv4
        return try RigCalibrator(calibrator: calibrator).calibrate(cameras: try RigCalibrationTests.cameras(calibrator), name: "pair").rig
    }

    static func close(_ a: [Double], _ b: [Double], _ tolerance: Double = 1e-12) -> Bool {
        a.count == b.count && zip(a, b).allSatisfy { abs($0 - $1) <= tolerance * max(1, abs($0)) }
    }

    static func expectSame(_ imported: CameraRig, _ rig: CameraRig, lengths: Double = 1e-9) {
        #expect(imported.cameras.count == rig.cameras.count)
        for (a, b) in zip(imported.cameras, rig.cameras) {
            // ROS's plumb_bob has five coefficients: an opencv4 camera comes back as opencv5 with k3 = 0.
            let padded = b.model == .opencv4 && a.model == .opencv5 ? b.distortion + [0] : b.distortion
            #expect(a.model == b.model || padded.count == 5)
            #expect(a.imageWidth == b.imageWidth && a.imageHeight == b.imageHeight)
            #expect(close(a.cameraMatrix, b.cameraMatrix) && close(a.distortion, padded))
        }
        for (a, b) in zip(imported.extrinsics, rig.extrinsics) {
            #expect(close(a.rotation, b.rotation, 1e-12), "R \(a.rotation) vs \(b.rotation)")
            #expect(close(a.tvec, b.tvec, lengths), "T \(a.tvec) vs \(b.tvec)")
        }
    }

    @Test func theStoreFileRoundTrips() throws {
        let rig = try Self.rig.get()
        for xml in [false, true] {
            let back = try RigStorageFormat.decode(try RigStorageFormat.encode(rig, xml: xml), name: "x")
            Self.expectSame(back, rig, lengths: 1e-15)
            #expect(back.extrinsicCovariance == rig.extrinsicCovariance && back.covariance == rig.covariance)
            #expect(back.cameraRMS == rig.cameraRMS && back.pairErrors == rig.pairErrors && back.noise == rig.noise && back.units == "mm")
            #expect(back.cameras.map(\.projectionCovariance) == rig.cameras.map(\.projectionCovariance))
        }
    }

    /// A rig file without one camera's image size is refused, naming the key as it is in the file (it was
    /// read as a camera of unknown size, which no rectification can use).
    @Test func aBrokenCameraKeyIsNamedWithItsCamera() throws {
        let rig = try Self.rig.get()
        let text = String(decoding: try RigStorageFormat.encode(rig, xml: false), as: UTF8.self)
        let broken = text.replacingOccurrences(of: "camera_1_image_width:", with: "camera_1_image_wide:")
        #expect(broken != text)
        do {
            _ = try RigStorageFormat.decode(Data(broken.utf8), name: "x")
            Issue.record("a rig without camera_1_image_width was read")
        } catch let error as MarkerKitError {
            print("measured: a rig without camera_1_image_width: \(error.description)")
            #expect(error.description.contains("camera_1_image_width"), "\(error.description)")
        }
        // Any other of a camera's keys: the message says whose (its keys are read without their prefix).
        let noMatrix = text.replacingOccurrences(of: "camera_1_camera_matrix:", with: "camera_1_camera_matrices:")
        #expect(throws: MarkerKitError.self) { try RigStorageFormat.decode(Data(noMatrix.utf8), name: "x") }
        do { _ = try RigStorageFormat.decode(Data(noMatrix.utf8), name: "x") } catch let error as MarkerKitError {
            #expect(error.description.hasPrefix("camera 1 (keys camera_1_...): ") && error.description.contains("camera_matrix"), "\(error.description)")
        }
    }

    @Test func everyExportIsReadBackByItsToolAndByImport() throws {
        let rig = try Self.rig.get()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("rig-export-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        var paths: [RigFormat: [String]] = [:]
        for format in RigFormat.allCases {
            for (name, data) in try format.encode(rig, file: format == .kalibr ? "camchain.yaml" : "stereo.yaml") {
                let url = folder.appendingPathComponent("\(format.rawValue)-\(name)")
                try data.write(to: url)
                paths[format, default: []].append(url.path)
            }
        }
        let answer = try Python.run("rig_readback.py", ["opencv": paths[.opencvStereo]![0], "ros": paths[.ros]!, "kalibr": paths[.kalibr]![0], "mrcal": paths[.mrcal]!])
        let r = try StereoRectification(rig: rig)
        let a = rig.cameras[0], b = rig.cameras[1], pose = rig.extrinsics[1]
        // OpenCV's FileStorage writes 17 significant digits: exact.
        let opencv = try #require(answer["opencv"] as? [String: [Double]])
        #expect(Self.close(opencv["M1"]!, a.cameraMatrix) && Self.close(opencv["M2"]!, b.cameraMatrix))
        #expect(Self.close(opencv["D1"]!, a.distortion) && Self.close(opencv["D2"]!, b.distortion))
        #expect(Self.close(opencv["R"]!, pose.rotation) && Self.close(opencv["T"]!, pose.tvec))
        #expect(Self.close(opencv["R1"]!, r.r1) && Self.close(opencv["P2"]!, r.p2) && Self.close(opencv["Q"]!, r.q))
        // ROS: the pair's R and P, Tx in metres.
        let ros = try #require(answer["ros"] as? [[String: Any]])
        #expect(Self.close(ros[0]["K"] as! [Double], a.cameraMatrix) && Self.close(ros[1]["R"] as! [Double], r.r2))
        #expect(Self.close([(ros[1]["P"] as! [Double])[3]], [r.p2[3] / 1000]) && ros[0]["model"] as? String == "plumb_bob")
        // Kalibr: T_cn_cnm1 in metres.
        let kalibr = try #require(answer["kalibr"] as? [[String: Any]])
        let t = try #require(kalibr[1]["T_cn_cnm1"] as? [[Double]])
        #expect(Self.close([t[0][3], t[1][3], t[2][3]].map { $0 * 1000 }, pose.tvec, 1e-12))
        #expect(Self.close(t.prefix(3).flatMap { Array($0.prefix(3)) }, pose.rotation) && kalibr[0]["model"] as? String == "radtan")
        // mrcal: rt_cam_ref of camera 1 is the rig's pose, in metres.
        let mrcal = try #require(answer["mrcal"] as? [[String: Any]])
        let rt = try #require(mrcal[1]["rt_cam_ref"] as? [Double])
        #expect(Self.close(Array(rt[0..<3]), pose.rvec) && Self.close(rt[3..<6].map { $0 * 1000 }, pose.tvec))
        #expect(mrcal[0]["lensmodel"] as? String == "LENSMODEL_OPENCV4" && Self.close(mrcal[1]["intrinsics"] as! [Double], [b.fx, b.fy, b.cx, b.cy] + b.distortion))
        // MarkerKit's import of each equals the stored rig.
        for format in RigFormat.allCases {
            let files = try paths[format]!.map { (name: URL(fileURLWithPath: $0).deletingPathExtension().lastPathComponent, data: try Data(contentsOf: URL(fileURLWithPath: $0))) }
            let back = try format.decode(files, rigName: "back")
            print("import \(format.rawValue): T \(back.extrinsics[1].tvec) vs \(pose.tvec)")
            Self.expectSame(back, rig)
        }
    }
}

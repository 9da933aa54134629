import CVBridge
import Foundation
import Testing
import Yams
@testable import MarkerKit

/// Calibration reproduces OpenCV's regression result; every format round-trips exactly and is
/// read by the reference reader that exists here.
@Suite(.serialized) struct CalibrationTests {
    static let images: [URL] = {
        let folder = Fixtures.url("chessboard-opencv-9x6")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.filter { $0.hasPrefix("left") && $0.hasSuffix(".jpg") }.sorted().map { folder.appendingPathComponent($0) }
    }()

    static func calibrate(_ model: CameraCalibration.Model, fitsCorners: Bool = true) throws -> Calibrator.Result {
        var calibrator = Calibrator(board: try Checkerboard(innerColumns: 9, innerRows: 6, square: .mm(1)))
        calibrator.model = model
        calibrator.fitsCorners = fitsCorners
        let (views, width, height) = try calibrator.findBoards(in: images)
        return try calibrator.calibrate(views: views, width: width, height: height, name: "left-\(model.rawValue)")
    }

    static let opencv5 = Result { try calibrate(.opencv5) }

    /// A model the calibration does not solve for is refused before any image is read (before: pinhole
    /// passed, every image was searched, and the solver refused it).
    @Test func anUnsolvableModelIsRefusedBeforeTheImagesAreRead() throws {
        var job = CalibrationJob(board: try Checkerboard(innerColumns: 9, innerRows: 6, square: .mm(1)),
                                 images: [URL(fileURLWithPath: "/nonexistent/view.png")], name: "pin")
        job.calibrator.model = .pinhole
        #expect(throws: MarkerKitError.invalidArgument("a calibration solves for the lens models opencv5, opencv4, opencv8 or fisheye, not 'pinhole'")) {
            try job.run()
        }
        #expect(CameraCalibration.Model.solvable.map(\.rawValue) == ["opencv5", "opencv4", "opencv8", "fisheye"])
        #expect(throws: MarkerKitError.self) { try CameraCalibration.Model.solvable(named: "Pinhole") }
        #expect(try CameraCalibration.Model.solvable(named: "FISHEYE") == .fisheye)
    }

    /// With cornerSubPix's corners, OpenCV's own regression figure; with each corner fitted, the same
    /// camera from corners that the model fits closer.
    @Test func reproducesOpenCVsRegressionResult() throws {
        #expect(Self.images.count == 13)
        let subPix = try Self.calibrate(.opencv5, fitsCorners: false)
        let result = try Self.opencv5.get()
        let c = result.calibration
        let rms = try #require(c.provenance).rms, subPixRMS = try #require(subPix.calibration.provenance).rms
        print(String(format: "measured: 13 left images, RMS %.4f with cornerSubPix's corners (OpenCV 0.1963), %.4f fitted; fx %.3f fy %.3f cx %.3f cy %.3f",
                     subPixRMS, rms, c.fx, c.fy, c.cx, c.cy))
        #expect(abs(subPixRMS - 0.1963) < 0.01)
        #expect(rms < 0.9 * subPixRMS)
        #expect(abs(c.fx - 532.8) / 532.8 < 0.005)
        #expect(abs(c.fy - 532.9) / 532.9 < 0.005)
        #expect(abs(c.cx - 342.5) < 2 && abs(c.cy - 233.9) < 2)
        #expect(result.used.count == 13)
        let p = try #require(c.provenance)
        #expect(p.stdDeviations.count == 9 && p.stdDeviations.allSatisfy { $0 > 0 && $0.isFinite })
        #expect(p.perViewErrors.count == 13)
    }

    @Test func anOutlierViewIsDroppedAndNamed() throws {
        let calibrator = Calibrator(board: try Checkerboard(innerColumns: 9, innerRows: 6, square: .mm(1)))
        var (views, width, height) = try calibrator.findBoards(in: Self.images)
        let clean = try calibrator.calibrate(views: views, width: width, height: height, name: "clean").calibration.provenance!.rms
        // One view's corners shifted as if the board had bent: 3 px off along a diagonal wave.
        views[4] = Calibrator.View(file: views[4].file, status: .used, corners: views[4].corners.enumerated().map { i, p in
            Point2(x: p.x + 3 * sin(Double(i)), y: p.y + 3 * cos(Double(i) * 0.7))
        })
        let result = try calibrator.calibrate(views: views, width: width, height: height, name: "t")
        guard case .outlier(let rms) = result.views[4].status else {
            Issue.record("view 4 should be an outlier, is \(result.views[4].status)")
            return
        }
        #expect(rms > 1 && result.used.count == 12)
        #expect(result.views[4].reason.hasPrefix("outlier (view RMS"))
        #expect(abs(result.calibration.provenance!.rms - clean) < 0.02, "the solve without it is as clean as before")
    }

    @Test func fisheyeAndRationalModelsGiveEveryStandardDeviation() throws {
        for model in [CameraCalibration.Model.opencv8, .fisheye] {
            let c = try Self.calibrate(model).calibration
            let sd = try #require(c.provenance).stdDeviations
            #expect(sd.count == 4 + model.distortionCount, "\(model)")
            #expect(sd.allSatisfy { $0 > 0 && $0.isFinite }, "\(model)")
            #expect(abs(c.fx - 532.8) / 532.8 < 0.01, "\(model)")
        }
    }

    /// A calibration of each model to export: real ones from the images, plus hand-made pinhole and
    /// 4-coefficient ones.
    static func samples() throws -> [CameraCalibration] {
        var all = [try opencv5.get().calibration]
        all.append(try calibrate(.opencv8).calibration)
        all.append(try calibrate(.fisheye).calibration)
        all.append(try CameraCalibration(name: "pin", model: .pinhole, cameraMatrix: [800.125, 0, 320.5, 0, 801.0625, 240.25, 0, 0, 1],
                                         distortion: [], imageWidth: 640, imageHeight: 480))
        var four = try CameraCalibration(name: "four", model: .opencv4, cameraMatrix: [600.1, 0, 330.3, 0, 601.7, 250.9, 0, 0, 1],
                                         distortion: [-0.1234567890123, 0.0456, 1e-4, -2e-5], imageWidth: 800, imageHeight: 600)
        // A calibration made through a camera carries the camera's state.
        four.camera = CameraState(device: "/dev/video2", stablePath: "/dev/v4l/by-id/usb-046d_HD_Pro_Webcam_C920_1234ABCD-video-index0",
                                  card: "HD Pro Webcam C920", driver: "uvcvideo", busInfo: "usb-0000:00:14.0-1", pixelFormat: "MJPG",
                                  width: 800, height: 600, fps: 24, optics: ["focus_automatic_continuous": 0, "focus_absolute": 35, "zoom_absolute": 100],
                                  focusRange: [30, 35])
        all.append(four)
        return all
    }

    @Test(arguments: CalibrationFormat.allCases)
    func everyFormatRoundTripsExactly(format: CalibrationFormat) throws {
        for original in try Self.samples() {
            let data: Data
            do {
                data = try format.encode(original)
            } catch let error as MarkerKitError {
                // Formats that cannot express a model say so, by name, and nothing else fails.
                let refusable: [CalibrationFormat: [CameraCalibration.Model]] = [.kalibr: [.opencv5, .opencv8], .mrcal: [.fisheye]]
                #expect(refusable[format]?.contains(original.model) == true, "\(format) refused \(original.model): \(error)")
                #expect(error.exitCode == 64 && error.description.count > 20)
                continue
            }
            let back = try format.decode(data, name: original.name)
            #expect(back.cameraMatrix == original.cameraMatrix, "\(format) \(original.model)")
            #expect(back.imageWidth == original.imageWidth && back.imageHeight == original.imageHeight)
            // The same coefficients, exactly; some formats widen a model (OpenCV4 as plumb_bob's five).
            let padded = back.distortion.count > original.distortion.count
                ? original.distortion + [Double](repeating: 0, count: back.distortion.count - original.distortion.count) : original.distortion
            #expect(back.distortion == padded, "\(format) \(original.model): \(back.distortion) vs \(original.distortion)")
            if [.opencvYAML, .opencvXML, .json].contains(format) {
                #expect(back == original, "\(format) keeps everything")
                // Calibrations made here carry their projection covariance, and these formats keep it.
                #expect((back.projectionCovariance != nil) == (original.provenance != nil), "\(format) \(original.model)")
            } else {
                #expect(back.projectionCovariance == nil)
                // Formats with no field for the camera keep it as comments (each keeps what it can).
                if original.camera != nil {
                    let text = String(decoding: data, as: UTF8.self)
                    #expect(text.contains("# taken with HD Pro Webcam C920") && text.contains("focus 35")
                            && text.contains("focus moved 30-35 during capture"), "\(format): \(text.prefix(400))")
                }
            }
        }
    }

    /// The free-text fields OpenCV's storage writes (detector, generator) hold any printable text and come
    /// back as written, from a file any YAML reader takes: OpenCV wrote an apostrophe as \', which Yams and
    /// PyYAML refuse (a detector summary with "MarkerKit's" once made every written calibration unreadable
    /// to them). Control characters but the tab are written as spaces: OpenCV read its own \x7f back as 0x07.
    @Test func freeTextFieldsRoundTripThroughYAMLReaders() throws {
        var c = try Self.opencv5.get().calibration
        var spaced = c
        spaced.provenance?.detector = "bell\u{07}del\u{7f}end"
        for format in [CalibrationFormat.opencvYAML, .opencvXML] {
            #expect(try format.decode(format.encode(spaced), name: c.name).provenance?.detector == "bell del end", "\(format)")
        }
        let text = "MarkerKit's grid: \"x\" # y \\' z \\ tab\t [a], {b} & *c ! % @ ` | > ? - 'q' é ’"
        c.provenance?.detector = text
        c.provenance?.generator = "'" + text
        for format in [CalibrationFormat.opencvYAML, .opencvXML] {
            let data = try format.encode(c)
            let back = try format.decode(data, name: c.name)
            #expect(back.provenance?.detector == text && back.provenance?.generator == "'" + text, "\(format)")
            #expect(back == c, "\(format) keeps everything")
        }
        let yaml = String(decoding: try CalibrationFormat.opencvYAML.encode(c), as: UTF8.self)
        // OpenCV's header line is a directive YAML 1.2 readers take only with its version; the rest is YAML.
        let body = yaml.split(separator: "\n", omittingEmptySubsequences: false).drop { !$0.hasPrefix("---") }.joined(separator: "\n")
        let parsed = try #require(try Yams.load(yaml: body) as? [String: Any])
        #expect(parsed["detector"] as? String == text, "\(String(describing: parsed["detector"]))")
        #expect(parsed["generator"] as? String == "'" + text)
    }

    @Test func openCVFilesAreReadByCvFileStorage() throws {
        let c = try Self.opencv5.get().calibration
        for xml in [false, true] {
            let text = String(decoding: try (xml ? CalibrationFormat.opencvXML : .opencvYAML).encode(c), as: UTF8.self)
            var storage: OpaquePointer?
            #expect(cvb_storage_open_read(text, &storage) == 0)
            defer { cvb_storage_close(storage) }
            var k = [Double](repeating: 0, count: 9), rows: Int32 = 0, cols: Int32 = 0
            #expect(cvb_storage_read_matrix(storage, "camera_matrix", &k, 9, &rows, &cols) == 1)
            #expect(k == c.cameraMatrix && rows == 3 && cols == 3)
            var d = [Double](repeating: 0, count: 5)
            #expect(cvb_storage_read_matrix(storage, "distortion_coefficients", &d, 5, &rows, &cols) == 1)
            #expect(d == c.distortion)
            for key in ["calibration_time", "nframes", "image_width", "image_height", "board_width", "board_height",
                        "square_size", "flags", "avg_reprojection_error", "per_view_reprojection_errors",
                        "std_deviations_intrinsics", "units", "camera_name", "model", "generator"] {
                #expect(text.contains(xml ? "<\(key)" : "\(key):"), "\(key) in \(xml ? "XML" : "YAML")")
            }
        }
    }

    @Test func rosKalibrColmapAndMrcalFilesHaveTheirToolsKeys() throws {
        let c = try Self.opencv5.get().calibration
        let ros = try #require(try Yams.load(yaml: String(decoding: try CalibrationFormat.ros.encode(c), as: UTF8.self)) as? [String: Any])
        #expect(ros["image_width"] as? Int == 640 && ros["distortion_model"] as? String == "plumb_bob")
        #expect((ros["camera_matrix"] as? [String: Any])?["rows"] as? Int == 3)
        #expect(((ros["projection_matrix"] as? [String: Any])?["data"] as? [Any])?.count == 12)
        #expect(((ros["rectification_matrix"] as? [String: Any])?["data"] as? [Any])?.count == 9)

        var four = c
        four.model = .opencv5
        four.distortion[4] = 0 // k3 = 0: Kalibr's radtan can hold it
        let kalibr = try #require(try Yams.load(yaml: String(decoding: try CalibrationFormat.kalibr.encode(four), as: UTF8.self)) as? [String: Any])
        let cam0 = try #require(kalibr["cam0"] as? [String: Any])
        #expect(cam0["camera_model"] as? String == "pinhole" && cam0["distortion_model"] as? String == "radtan")
        #expect((cam0["intrinsics"] as? [Double]) == [c.fx, c.fy, c.cx, c.cy])
        #expect((cam0["resolution"] as? [Int]) == [640, 480])

        let colmap = String(decoding: try CalibrationFormat.colmap.encode(c), as: UTF8.self)
        let line = try #require(colmap.split(separator: "\n").first { !$0.hasPrefix("#") })
        let fields = line.split(separator: " ")
        #expect(fields[0] == "1" && fields[1] == "FULL_OPENCV" && fields[2] == "640" && fields[3] == "480" && fields.count == 16)

        let mrcal = String(decoding: try CalibrationFormat.mrcal.encode(c), as: UTF8.self)
        let parsed = try #require(try MrcalFormat.parsePythonLiteral(mrcal) as? [String: Any])
        #expect(parsed["lensmodel"] as? String == "LENSMODEL_OPENCV5")
        #expect((parsed["intrinsics"] as? [Double])?.count == 9)
    }

    @Test func theReportHasThreePagesOfPlots() throws {
        let directory = try TemporaryDirectory()
        let document = try CalibrationReport(result: try Self.opencv5.get()).document()
        let pdf = try write(document, as: "report.pdf", in: directory)[0]
        // Summary and per-view errors; residuals, coverage and distortion; the projection uncertainty map.
        #expect(try runTool("pdfinfo", [pdf.path]).range(of: #"Pages:\s+3\n"#, options: .regularExpression) != nil)
        #expect(try runTool("pdftotext", ["-f", "3", "-l", "3", pdf.path, "-"]).contains("Projection uncertainty of"))
        let residuals = try CalibrationReport(result: try Self.opencv5.get()).residuals()
        let all = residuals.flatMap { $0 }
        let rms = (all.map { $0.dx * $0.dx + $0.dy * $0.dy }.reduce(0, +) / Double(all.count)).squareRoot()
        #expect(abs(rms - (try Self.opencv5.get().calibration.provenance!.rms)) < 1e-6, "residuals agree with the solve's RMS")
    }

    @Test func undistortionStraightensTheBoard() throws {
        // The board's corners lie on straight lines after undistortion: the worst distance of a row's
        // corners from its fitted line drops.
        let c = try Self.opencv5.get().calibration
        let frame = try Frame(contentsOf: Self.images[0], format: .gray8)
        let straight = try Undistorter(calibration: c, alpha: 0).undistort(frame)
        let detector = ChessboardDetector(innerColumns: 9, innerRows: 6)
        func bend(_ image: GrayImage) throws -> Double {
            let corners = try #require(try detector.detect(in: image))
            return (0..<6).map { r in
                let row = Array(corners[(r * 9)..<(r * 9 + 9)])
                let line = CornerRefiner.fitLine(row)
                return row.map { abs(($0.x - line.point.x) * line.direction.y - ($0.y - line.point.y) * line.direction.x) }.max()!
            }.max()!
        }
        let before = try bend(GrayImage(width: frame.width, height: frame.height, pixels: frame.bytes))
        let after = try bend(GrayImage(width: straight.width, height: straight.height, pixels: straight.bytes))
        print(String(format: "measured: left01 row bend %.2f px before undistortion, %.2f px after", before, after))
        #expect(after < before / 3)
    }
}

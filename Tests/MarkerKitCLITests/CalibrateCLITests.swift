import Foundation
import Testing

/// `markerkit calibrate`, `calibrations` and `undistort` run as a user runs them.
@Suite struct CalibrateCLITests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures")
    static let boards = fixtures.appendingPathComponent("chessboard-opencv-9x6")

    /// A working folder with a stored calibration `cam` to protect.
    static func workspace() throws -> (URL, Data) {
        let dir = try makeDirectory()
        let store = dir.appendingPathComponent("Calibrations")
        try FileManager.default.createDirectory(at: store, withIntermediateDirectories: false)
        let original = Data("%YAML:1.0\n---\ncamera_matrix: !!opencv-matrix\n   rows: 3\n   cols: 3\n   dt: d\n   data: [ 500., 0., 320., 0., 500., 240., 0., 0., 1. ]\nimage_width: 640\nimage_height: 480\n".utf8)
        try original.write(to: store.appendingPathComponent("cam.yaml"))
        func copy(_ names: [String], to folder: String) throws {
            let target = dir.appendingPathComponent(folder)
            try FileManager.default.createDirectory(at: target, withIntermediateDirectories: true)
            for (i, name) in names.enumerated() {
                try FileManager.default.copyItem(at: boards.appendingPathComponent(name), to: target.appendingPathComponent("v\(i).jpg"))
            }
        }
        try copy(["left01.jpg", "left02.jpg"], to: "two")
        try copy(["left01.jpg", "left01.jpg", "left01.jpg", "left01.jpg"], to: "same")
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("empty"), withIntermediateDirectories: false)
        let noBoard = dir.appendingPathComponent("noboard")
        try FileManager.default.createDirectory(at: noBoard, withIntermediateDirectories: false)
        try FileManager.default.copyItem(at: fixtures.appendingPathComponent("aruco-original-photos/single/image-test.png"),
                                         to: noBoard.appendingPathComponent("photo.png"))
        let malformed: [String: String] = [
            "bad-opencv.yaml": "%YAML:1.0\ncamera_matrix: [1, 2\n",
            "bad-opencv.xml": "<?xml version=\"1.0\"?>\n<opencv_storage><camera_matrix>1 2</opencv_storage>",
            "bad-ros.yaml": "image_width: 640\nimage_height: 480\ndistortion_model: plumb_bob\n",
            "bad-kalibr.yaml": "cam0:\n  camera_model: pinhole\n  intrinsics: [500, 500]\n  resolution: [640, 480]\n",
            "bad-colmap.txt": "# cameras\n1 OPENCV 640\n",
            "bad-mrcal.cameramodel": "{ 'lensmodel': 'LENSMODEL_OPENCV5', 'intrinsics': [ 500, 500, 320,\n",
            "bad.json": "{\"format\": \"markerkit-calibration\"}\n",
            "nan-ros.yaml": "image_width: 640\nimage_height: 480\ncamera_name: x\ncamera_matrix:\n  rows: 3\n  cols: 3\n  data: [.nan, 0, 320, 0, 500, 240, 0, 0, 1]\ndistortion_model: plumb_bob\ndistortion_coefficients:\n  rows: 1\n  cols: 5\n  data: [0, 0, 0, 0, 0]\nrectification_matrix:\n  rows: 3\n  cols: 3\n  data: [1, 0, 0, 0, 1, 0, 0, 0, 1]\nprojection_matrix:\n  rows: 3\n  cols: 4\n  data: [500, 0, 320, 0, 0, 500, 240, 0, 0, 0, 1, 0]\n",
            "negative-colmap.txt": "1 PINHOLE 640 480 -500 500 320 240\n",
            "zero-mrcal.cameramodel": "{ 'lensmodel': 'LENSMODEL_PINHOLE', 'intrinsics': [ 0, 500, 320, 240 ], 'imagersize': [ 640, 480 ] }\n",
            "inf-kalibr.yaml": "cam0:\n  camera_model: pinhole\n  intrinsics: [.inf, 500, 320, 240]\n  distortion_model: radtan\n  distortion_coeffs: [0, 0, 0, 0]\n  resolution: [640, 480]\n",
            "fisheye12.yaml": "%YAML:1.0\ncamera_matrix: !!opencv-matrix\n   rows: 3\n   cols: 3\n   dt: d\n   data: [ 500., 0., 320., 0., 500., 240., 0., 0., 1. ]\nmodel: unicorn\n",
        ]
        for (name, text) in malformed { try Data(text.utf8).write(to: dir.appendingPathComponent(name)) }
        return (dir, original)
    }

    static let boardArgs = ["--inner", "9x6", "--square", "1mm"]
    static let badCases: [(arguments: [String], status: Int32, says: String)] = [
        (["calibrate", "empty"] + boardArgs + ["--name", "new"], 66, "holds no images"),
        (["calibrate", "missing-folder"] + boardArgs + ["--name", "new"], 66, "no such file or folder"),
        (["calibrate", "noboard"] + boardArgs + ["--name", "new"], 65, "no image shows a 9x6 board"),
        (["calibrate", "two", "--inner", "12x9", "--square", "1mm", "--name", "new"], 65, "named by its inner corners: 9x6 for 10x7 squares"),
        (["calibrate", "two"] + boardArgs + ["--name", "new"], 65, "only 2 images show the board"),
        (["calibrate", "same"] + boardArgs + ["--name", "new"], 65, "too similar to constrain the focal length"),
        (["calibrate", "two"] + boardArgs + ["--model", "brown", "--name", "new"], 64, "'brown' is invalid for '--model <model>'"),
        (["calibrate", "two", "--inner", "9x6", "--square", "1", "--name", "new"], 64, "has no unit"),
        (["calibrate", "two"] + boardArgs + ["--name", "cam"], 73, "exists: add --force"),
        (["calibrate", "two"] + boardArgs + ["--name", "../evil"], 64, "calibration name"),
        (["calibrate", "two", "--board", "missing.json", "--name", "new"], 66, "missing.json"),
        (["calibrations", "import", "bad-opencv.yaml", "--name", "new"], 65, "bad-opencv.yaml"),
        (["calibrations", "import", "bad-opencv.xml", "--name", "new"], 65, "bad-opencv.xml"),
        (["calibrations", "import", "bad-ros.yaml", "--name", "new", "--format", "ros"], 65, "bad-ros.yaml"),
        (["calibrations", "import", "bad-kalibr.yaml", "--name", "new", "--format", "kalibr"], 65, "bad-kalibr.yaml"),
        (["calibrations", "import", "bad-colmap.txt", "--name", "new"], 65, "bad-colmap.txt"),
        (["calibrations", "import", "bad-mrcal.cameramodel", "--name", "new"], 65, "bad-mrcal.cameramodel"),
        (["calibrations", "import", "bad.json", "--name", "new"], 65, "bad.json"),
        (["calibrations", "import", "nan-ros.yaml", "--name", "new", "--format", "ros"], 65, "NaN"),
        (["calibrations", "import", "negative-colmap.txt", "--name", "new"], 65, "focal lengths must be positive"),
        (["calibrations", "import", "zero-mrcal.cameramodel", "--name", "new"], 65, "focal lengths must be positive"),
        (["calibrations", "import", "inf-kalibr.yaml", "--name", "new", "--format", "kalibr"], 65, "infinite"),
        (["calibrations", "import", "fisheye12.yaml", "--name", "new"], 65, "unknown model 'unicorn'"),
        (["calibrations", "import", "nan-ros.yaml", "--name", "cam", "--format", "ros"], 65, "NaN"),
        (["calibrations", "import", "Calibrations/cam.yaml", "--name", "cam"], 73, "exists: add --force"),
        (["calibrations", "import", "bad.json", "--name", "new", "--format", "blender"], 64, "'blender' is invalid for '--format <format>'"),
        (["calibrations", "export", "cam", "--format", "kalibr", "-o", "nodir/x.yaml"], 73, "does not exist"),
        (["calibrations", "show", "nosuch"], 66, "no calibration 'nosuch'"),
        (["undistort", "--calibration", "cam", "noboard", "-o", "out", "--alpha", "2"], 64, "--alpha"),
    ]

    @Test(arguments: 0..<badCases.count)
    func badInputLeavesTheStoreUntouched(index: Int) throws {
        let (arguments, status, says) = Self.badCases[index]
        let (dir, original) = try Self.workspace()
        defer { try? FileManager.default.removeItem(at: dir) }
        let result = try CLI.run(arguments, in: dir)
        #expect(result.status == status, "\(arguments): \(result.stderr)")
        let errors = result.stderrLines.filter { !$0.contains("\u{1B}") }
        #expect(errors.count == 1, "\(arguments): \(result.stderr)")
        #expect(result.stderr.hasPrefix("markerkit: error: ") && result.stderr.contains(says), "\(arguments): \(result.stderr)")
        #expect(try Data(contentsOf: dir.appendingPathComponent("Calibrations/cam.yaml")) == original)
        #expect(try files(in: dir.appendingPathComponent("Calibrations")) == ["cam.yaml"], "nothing else stored")
    }

    @Test func calibrateStoreExportImportAndUse() throws {
        let (dir, _) = try Self.workspace()
        defer { try? FileManager.default.removeItem(at: dir) }
        let calibrate = try CLI.run(["calibrate", Self.boards.path] + Self.boardArgs + ["--name", "left", "--report", "report.pdf"], in: dir)
        #expect(calibrate.status == 0, "\(calibrate.stderr)")
        #expect(calibrate.stdout.contains("calibrated from 13 of 13 images"))
        #expect(calibrate.stdout.contains("stored \(dir.path)/Calibrations/left.yaml"))
        #expect(calibrate.stdout.contains("RMS reprojection error 0.16"), "\(calibrate.stdout)")
        // Each format carries fx as calibrate printed it.
        let fx = try #require(calibrate.stdout.split(separator: "\n").first { $0.trimmingCharacters(in: .whitespaces).hasPrefix("fx  ") })
            .trimmingCharacters(in: .whitespaces).prefix(11)
        #expect(FileManager.default.fileExists(atPath: dir.appendingPathComponent("report.pdf").path))
        // --force replaces; the file changes (a new calibration_time at least) and still reads.
        let again = try CLI.run(["calibrate", Self.boards.path] + Self.boardArgs + ["--name", "left", "--force"], in: dir)
        #expect(again.status == 0)

        for format in ["opencv-yaml", "opencv-xml", "ros", "colmap", "mrcal", "json"] {
            let file = "left-\(format).out"
            let export = try CLI.run(["calibrations", "export", "left", "--format", format, "-o", file], in: dir)
            #expect(export.status == 0, "\(format): \(export.stderr)")
            let imported = try CLI.run(["calibrations", "import", file, "--name", "back-\(format)", "--format", format], in: dir)
            #expect(imported.status == 0, "\(format): \(imported.stderr)")
            #expect(imported.stdout.contains(fx), "\(format): \(fx)")
        }
        let kalibr = try CLI.run(["calibrations", "export", "left", "--format", "kalibr", "-o", "k.yaml"], in: dir)
        #expect(kalibr.status == 64 && kalibr.stderr.contains("k3"), "Kalibr cannot hold k3: \(kalibr.stderr)")
        let list = try CLI.run(["calibrations", "list"], in: dir)
        #expect(list.stdout.contains("left  opencv5 640x480") && list.stdout.contains("back-ros"))

        let undistort = try CLI.run(["undistort", "--calibration", "left", Self.boards.appendingPathComponent("left01.jpg").path, "-o", "straight"], in: dir)
        #expect(undistort.status == 0, "\(undistort.stderr)")
        #expect(try files(in: dir.appendingPathComponent("straight")) == ["left01.png"])
        let detect = try CLI.run(["detect", Self.fixtures.appendingPathComponent("aruco-original-photos/single/image-test.png").path,
                                  "--calibration", "cam", "--marker-size", "5cm", "--jsonl"], in: dir)
        #expect(detect.status == 0 && detect.stdout.contains("\"tvec\""), "detect finds stored calibrations by name")
    }

    /// The radtan model of ROS and Kalibr. --model opencv4 (or opencv5 with --fix-k3) exports to
    /// Kalibr and ROS and reads back; an opencv5 calibration with k3 is refused by the Kalibr export with
    /// a message naming options that exist.
    @Test func opencv4CalibrationsExportToKalibrAndROSAndReadBack() throws {
        let dir = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let four = try CLI.run(["calibrate", Self.boards.path, "--inner", "9x6", "--square", "25mm", "--model", "opencv4", "--name", "radtan"], in: dir)
        #expect(four.status == 0 && four.stdout.contains("model opencv4"), "\(four.stderr)")
        for (format, file) in [("kalibr", "camchain.yaml"), ("ros", "camera_info.yaml")] {
            #expect(try CLI.run(["calibrations", "export", "radtan", "--format", format, "-o", file], in: dir).status == 0, "\(format)")
            let back = try CLI.run(["calibrations", "import", file, "--format", format, "--name", "back-\(format)"], in: dir)
            #expect(back.status == 0, "\(back.stderr)")
        }
        let original = try String(contentsOf: dir.appendingPathComponent("Calibrations/radtan.yaml"), encoding: .utf8)
        let show = try CLI.run(["calibrations", "show", "radtan"], in: dir).stdout
        for format in ["kalibr", "ros"] {
            let again = try CLI.run(["calibrations", "show", "back-\(format)"], in: dir).stdout
            // The same intrinsics and coefficients (ROS widens opencv4 to plumb_bob's five, k3 = 0).
            for key in ["fx ", "fy ", "cx ", "cy ", "k1 ", "k2 ", "p1 ", "p2 "] {
                let line = { (text: String) in text.split(separator: "\n").first { $0.trimmingCharacters(in: .whitespaces).hasPrefix(key) }?
                    .split(separator: " ").dropFirst().first }
                #expect(line(again) == line(show) && line(show) != nil, "\(format) \(key)")
            }
        }
        #expect(original.contains("model: opencv4"))
        // opencv5 with k3 fixed at zero exports too; with k3 it is refused, naming --model opencv4 and --fix-k3.
        #expect(try CLI.run(["calibrate", Self.boards.path, "--inner", "9x6", "--square", "25mm", "--fix-k3", "--name", "nok3"], in: dir).status == 0)
        #expect(try CLI.run(["calibrations", "export", "nok3", "--format", "kalibr", "-o", "nok3.yaml"], in: dir).status == 0)
        #expect(try CLI.run(["calibrate", Self.boards.path, "--inner", "9x6", "--square", "25mm", "--name", "withk3"], in: dir).status == 0)
        let refused = try CLI.run(["calibrations", "export", "withk3", "--format", "kalibr", "-o", "k3.yaml"], in: dir)
        #expect(refused.status == 64 && refused.stderr.contains("--model opencv4") && refused.stderr.contains("--fix-k3"), "\(refused.stderr)")
        let help = try CLI.run(["calibrate", "--help"], in: dir).stdout
        #expect(help.contains("--fix-k3") && help.contains("opencv4"))
        let fisheye = try CLI.run(["calibrate", Self.boards.path, "--inner", "9x6", "--square", "25mm", "--model", "fisheye", "--fix-k3"], in: dir)
        #expect(fisheye.status == 64 && fisheye.stderr.contains("--fix-k3 applies to --model opencv5"), "\(fisheye.stderr)")
    }
}

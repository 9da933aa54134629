import Foundation
import Testing

/// `calibrate --rig`, a rig in the store, its exports and imports, `undistort --rectify` and a rig's
/// uncertainty, run as a user runs them; bad input to each gets one line and stores nothing.
@Suite struct RigCLITests {
    static let fixtures = CalibrateCLITests.fixtures
    static let left = fixtures.appendingPathComponent("chessboard-opencv-9x6"), right = fixtures.appendingPathComponent("chessboard-opencv-9x6-right")
    static let rigArgs = ["calibrate", "--rig", left.path, right.path, "--inner", "9x6", "--square", "25mm", "--camera-names", "left,right"]

    @Test func calibrateARigExportImportRectifyAndAskItsUncertainty() throws {
        let dir = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let rig = try CLI.run(Self.rigArgs + ["--model", "opencv4", "--name", "stereo", "--cross-validate"], in: dir)
        #expect(rig.status == 0, "\(rig.stderr)")
        #expect(rig.stdout.contains("calibrated a rig of 2 cameras from 13 of 13 views"))
        // OpenCV's sample reports T of about (-3.33, 0.04, 0) squares: 83.2 mm.
        #expect(abs((Self.baseline(in: rig.stdout) ?? 0) - 83.2) < 0.1, "\(rig.stdout)")
        #expect(rig.stdout.contains("rectified left + right: focal") && rig.stdout.contains("disparity of a point at 1 m 4"))
        #expect(rig.stdout.contains("cross-validation: the rig solved from each half of the views (7 and 6)"))
        #expect(rig.stdout.contains("stored \(dir.path)/Calibrations/stereo.yaml"))
        let list = try CLI.run(["calibrations", "list"], in: dir)
        #expect(list.stdout.contains("stereo  rig of 2 cameras (left opencv4 640x480, right opencv4 640x480), baseline 83.")
                && abs((Self.baseline(in: list.stdout) ?? 0) - 83.2) < 0.1, "\(list.stdout)")
        let show = try CLI.run(["calibrations", "show", "stereo"], in: dir)
        #expect(show.status == 0 && show.stdout.contains("T [-83.1"))
        // Every export, imported again, gives the same baseline.
        for (format, output, inputs) in [("opencv-stereo", "stereo.xml", ["stereo.xml"]), ("kalibr", "camchain.yaml", ["camchain.yaml"]),
                                         ("ros", "ros", ["ros/left.yaml", "ros/right.yaml"]), ("mrcal", "mrcal", ["mrcal/left.cameramodel", "mrcal/right.cameramodel"])] {
            let export = try CLI.run(["calibrations", "export", "stereo", "--format", format, "-o", output], in: dir)
            #expect(export.status == 0, "\(format): \(export.stderr)")
            let back = try CLI.run(["calibrations", "import"] + inputs + ["--name", "back-\(format)"], in: dir)
            #expect(back.status == 0 && abs((Self.baseline(in: back.stdout) ?? 0) - (Self.baseline(in: rig.stdout) ?? 1)) < 0.001, "\(format): \(back.stderr) \(back.stdout)")
        }
        let one = try CLI.run(["calibrations", "export", "stereo", "--camera", "right", "--format", "ros", "-o", "right.yaml"], in: dir)
        #expect(one.status == 0, "\(one.stderr)")
        let rectify = try CLI.run(["undistort", "--calibration", "stereo", "--rectify", Self.left.appendingPathComponent("left01.jpg").path,
                                   Self.right.appendingPathComponent("right01.jpg").path, "-o", "rectified"], in: dir)
        #expect(rectify.status == 0, "\(rectify.stderr)")
        #expect(try files(in: dir.appendingPathComponent("rectified")) == ["left", "left-map.npy", "right", "right-map.npy"])
        #expect(try files(in: dir.appendingPathComponent("rectified/right")) == ["right01.png"])
        let uncertainty = try CLI.run(["calibrations", "uncertainty", "stereo", "--range", "1m"], in: dir)
        #expect(uncertainty.status == 0 && uncertainty.stdout.contains("left + right") && uncertainty.stdout.contains("1000.0"), "\(uncertainty.stderr)")
    }

    /// A workspace with folders that do not pair up, a camera that never sees the board, and a stored rig
    /// whose cameras differ in image size.
    static func workspace() throws -> URL {
        let dir = try makeDirectory()
        func folder(_ name: String, _ files: [(String, URL)]) throws {
            let target = dir.appendingPathComponent(name)
            try FileManager.default.createDirectory(at: target, withIntermediateDirectories: true)
            for (file, source) in files { try FileManager.default.copyItem(at: source, to: target.appendingPathComponent(file)) }
        }
        let photo = fixtures.appendingPathComponent("aruco-original-photos/single/image-test.png")
        try folder("l", (1...4).map { ("left0\($0).jpg", left.appendingPathComponent("left0\($0).jpg")) })
        try folder("r", [1, 2, 3, 5].map { ("right0\($0).jpg", right.appendingPathComponent("right0\($0).jpg")) })
        try folder("blind", (1...4).map { ("right0\($0).png", photo) })
        let store = dir.appendingPathComponent("Calibrations")
        try FileManager.default.createDirectory(at: store, withIntermediateDirectories: true)
        let camchain = """
        cam0:
          camera_model: pinhole
          intrinsics: [500, 500, 320, 240]
          distortion_model: radtan
          distortion_coeffs: [0, 0, 0, 0]
          resolution: [640, 480]
        cam1:
          T_cn_cnm1:
          - [1, 0, 0, -0.1]
          - [0, 1, 0, 0]
          - [0, 0, 1, 0]
          - [0, 0, 0, 1]
          camera_model: pinhole
          intrinsics: [400, 400, 160, 120]
          distortion_model: radtan
          distortion_coeffs: [0, 0, 0, 0]
          resolution: [320, 240]

        """
        try Data(camchain.utf8).write(to: dir.appendingPathComponent("mixed.yaml"))
        #expect(try CLI.run(["calibrations", "import", "mixed.yaml", "--name", "mixed"], in: dir).status == 0)
        return dir
    }

    static let badCases: [(arguments: [String], status: Int32, says: String)] = [
        (["calibrate", "--rig", "l", "r", "--inner", "9x6", "--square", "25mm", "--name", "new"], 65, "have no partner in 'l' (first: 'right05.jpg' of 'r', view '05')"),
        (["calibrate", "--rig", "l", "blind", "--inner", "9x6", "--square", "25mm", "--name", "new"], 65, "camera 'blind' never sees the board"),
        (["calibrate", "--rig", "l", "--inner", "9x6", "--square", "25mm", "--name", "new"], 64, "one folder per camera, 2 or more"),
        (["calibrate", "--rig", "l", "nowhere", "--inner", "9x6", "--square", "25mm", "--name", "new"], 66, "'nowhere' is not a folder"),
        (["calibrate", "--rig", "l", "r", "--inner", "9x6", "--square", "25mm", "--camera-names", "a", "--name", "new"], 64, "--camera-names takes 2 different names"),
        (["calibrate", "--rig", "l", "r", "--inner", "9x6", "--square", "25mm", "--camera-names", "a,../b", "--name", "new"], 64, "--camera-names"),
        (["calibrate", "--rig", "l", "r", "--inner", "9x6", "--square", "25mm", "--name", "new", "-o", "rig.json"], 73, "a rig is written as .yaml or .xml"),
        (["undistort", "--calibration", "mixed", "--rectify", "l/left01.jpg", "r/right01.jpg", "-o", "out"], 65, "differ in image size"),
        (["undistort", "--calibration", "mixed", "l", "-o", "out"], 64, "is a rig: rectify its pairs with --rectify"),
        (["calibrations", "export", "mixed", "--format", "colmap", "-o", "x.txt"], 64, "a rig is exported as opencv-stereo, ros, kalibr, mrcal"),
        (["calibrations", "export", "mixed", "--camera", "nope", "--format", "ros", "-o", "x.yaml"], 64, "the rig has no camera 'nope'"),
        (["calibrations", "export", "mixed", "--format", "ros", "-o", "ros"], 65, "differ in image size"),
        (["calibrations", "uncertainty", "mixed"], 65, "has no covariance"),
        (["calibrations", "import", "l/left01.jpg", "r/right01.jpg", "--name", "new"], 64, "several files make a rig in ros"),
    ]

    @Test(arguments: 0..<badCases.count)
    func badInputGetsOneLineAndStoresNothing(index: Int) throws {
        let (arguments, status, says) = Self.badCases[index]
        let dir = try Self.workspace()
        defer { try? FileManager.default.removeItem(at: dir) }
        let before = try files(in: dir)
        let result = try CLI.run(arguments, in: dir)
        #expect(result.status == status, "\(arguments): \(result.stderr)")
        let errors = result.stderrLines.filter { !$0.contains("\u{1B}") && !$0.hasPrefix("finding boards") }
        #expect(errors.count == 1, "\(arguments): \(result.stderr)")
        #expect(result.stderr.contains("markerkit: error: ") && result.stderr.contains(says), "\(arguments): \(result.stderr)")
        #expect(try files(in: dir.appendingPathComponent("Calibrations")) == ["mixed.yaml"], "nothing stored")
        #expect(try files(in: dir) == before, "nothing written")
    }
}

extension RigCLITests {
    /// The first "baseline <number>" a command printed, in its units.
    static func baseline(in text: String) -> Double? {
        guard let range = text.range(of: #"baseline -?[0-9]+(\.[0-9]+)?"#, options: .regularExpression) else { return nil }
        return Double(text[range].dropFirst("baseline ".count))
    }
}

import Foundation
import Testing

/// `markerkit detect` run as a user runs it.
@Suite struct DetectCLITests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/aruco-original-photos")
    var single: String { Self.fixtures.appendingPathComponent("single/image-test.png").path }
    var intrinsics: String { Self.fixtures.appendingPathComponent("single/intrinsics.yml").path }

    @Test func jsonWithPosesAndAnnotatedImage() throws {
        let dir = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let result = try CLI.run(["detect", single, "--calibration", intrinsics, "--marker-size", "50mm",
                                  "--json", "out.json", "--annotate", "annotated"], in: dir)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("6 markers: 101 601 701 801 901 1001"))
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: dir.appendingPathComponent("out.json"))) as! [String: Any]
        let frames = json["frames"] as! [[String: Any]]
        #expect(frames.count == 1 && frames[0]["width"] as? Int == 640 && frames[0]["index"] as? Int == 0)
        let markers = frames[0]["markers"] as! [[String: Any]]
        #expect(markers.map { $0["id"] as! Int } == [101, 601, 701, 801, 901, 1001])
        let pose = markers[0]["pose"] as! [String: Any]
        #expect(pose["unit"] as? String == "m")
        let tvec = pose["tvec"] as! [Double]
        #expect(abs(tvec[2] - 6.048 * 0.05) < 0.05 * 6.048 * 0.05, "tvec z \(tvec[2]) m")
        #expect((markers[0]["corners"] as! [[Double]]).count == 4)
        #expect(try files(in: dir.appendingPathComponent("annotated")) == ["image-test.png"])
    }

    @Test func jsonLinesToStdoutAndCornersOnlyWithoutCalibration() throws {
        let dir = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let result = try CLI.run(["detect", single, single, "--jsonl"], in: dir)
        #expect(result.status == 0)
        let lines = result.stdout.split(separator: "\n")
        #expect(lines.count == 2)
        let first = try JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as! [String: Any]
        let markers = first["markers"] as! [[String: Any]]
        #expect(markers.count == 6 && markers.allSatisfy { $0["pose"] == nil })
    }

    @Test func aFolderWithOneCorruptFileIsAPartialFailure() throws {
        let dir = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let folder = dir.appendingPathComponent("shots")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false)
        try FileManager.default.copyItem(atPath: single, toPath: folder.appendingPathComponent("a.png").path)
        try Data("not a png".utf8).write(to: folder.appendingPathComponent("b.png"))
        try Data("notes".utf8).write(to: folder.appendingPathComponent("notes.txt"))
        let result = try CLI.run(["detect", "shots"], in: dir)
        #expect(result.status == 1)
        #expect(result.stdout.contains("shots/a.png: 6 markers"))
        let errors = result.stderrLines.filter { $0.hasPrefix("markerkit: error:") }
        #expect(errors.count == 1 && errors[0].contains("shots/b.png"))
        #expect(result.stderrLines.contains { $0.hasPrefix("markerkit: note:") && $0.contains("notes.txt") })
    }

    /// A real photo of a DICT_4X4_250 ChArUco pattern (Tests/Fixtures/charuco-real) read with the default
    /// dictionary: 0 markers, and one line naming the 4x4 dictionary that reads them; with that dictionary
    /// they are read and no hint is printed.
    @Test func noMarkersNamesTheDictionaryThatReadsThem() throws {
        let photo = Self.fixtures.deletingLastPathComponent().appendingPathComponent("charuco-real/nbhr_pycalib_gopro/00000001.jpg").path
        let dir = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let result = try CLI.run(["detect", photo], in: dir)
        #expect(result.status == 0, "\(result.stderr)")
        let hints = result.stdout.split(separator: "\n").filter { $0.hasPrefix("0 markers of DICT_ARUCO_ORIGINAL; ") }
        #expect(hints.count == 1, "\(result.stdout)")
        #expect(hints.first?.contains("; DICT_4X4_50 reads") == true || hints.first?.contains("; DICT_4X4_100 reads") == true
                || hints.first?.contains("; DICT_4X4_250 reads") == true, "\(result.stdout)")
        #expect(hints.first?.contains("; try --dictionary 4x4_") == true, "the option that reads them: \(result.stdout)")
        let read = try CLI.run(["detect", photo, "--dictionary", "DICT_4X4_250"], in: dir)
        #expect(read.status == 0, "\(read.stderr)")
        #expect(!read.stdout.contains("0 markers of"), "\(read.stdout)")
        #expect(!read.stdout.contains(": 0 markers"), "\(read.stdout)")
        // Markers of the dictionary asked for: no hint.
        let aruco = try CLI.run(["detect", single], in: dir)
        #expect(!aruco.stdout.contains("0 markers of"))
    }

    static let badCases: [(arguments: [String], status: Int32, says: String)] = [
        (["detect", "missing.png"], 66, "missing.png"),
        (["detect", "corrupt.png"], 65, "corrupt.png"),
        (["detect", "empty"], 66, "holds no images"),
        (["detect", "fake.avi"], 65, "fake.avi"),
        (["detect", "corrupt.png", "--calibration", "nosuch"], 66, "no calibration 'nosuch'"),
        (["detect", "corrupt.png", "--calibration", "bad.yml"], 65, "bad.yml' is malformed"),
        (["detect", "corrupt.png", "--marker-size", "50"], 64, "has no unit"),
        (["detect", "corrupt.png", "--json", "nodir/out.json"], 73, "does not exist"),
        (["detect", "corrupt.png", "--dictionary", "8x8_50"], 64, "8x8_50"),
    ]

    @Test(arguments: 0..<badCases.count)
    func badInputGetsOneLine(index: Int) throws {
        let (arguments, status, says) = Self.badCases[index]
        let dir = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try Data([0x89, 0x50, 0x4E, 0x47, 0, 1, 2]).write(to: dir.appendingPathComponent("corrupt.png"))
        try Data("RIFF nothing".utf8).write(to: dir.appendingPathComponent("fake.avi"))
        try Data("%YAML:1.0\ncamera_matrix: [1, 2\n".utf8).write(to: dir.appendingPathComponent("bad.yml"))
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("empty"), withIntermediateDirectories: false)
        let before = try files(in: dir)
        let result = try CLI.run(arguments, in: dir)
        #expect(result.status == status, "\(arguments): \(result.stderr)")
        #expect(result.stderrLines.count == 1, "\(arguments): \(result.stderr)")
        #expect(result.stderr.hasPrefix("markerkit: error: ") && result.stderr.contains(says), "\(arguments): \(result.stderr)")
        #expect(try files(in: dir) == before, "no output left behind")
    }
}

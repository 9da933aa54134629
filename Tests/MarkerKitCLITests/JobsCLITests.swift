import Foundation
import Testing

/// `--jobs`: `detect`, `verify markers` and `calibrate` spread their work over threads and must write
/// exactly what `--jobs 1` writes, in the same order: JSON, JSON lines, printed lines, annotated files,
/// errors and exit codes.
@Suite struct JobsCLITests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures")
    static let photos = fixtures.appendingPathComponent("aruco-original-photos/single")

    /// Every file under `directory` by relative path, with its bytes.
    static func contents(of directory: URL) throws -> [String: Data] {
        var found: [String: Data] = [:]
        let enumerator = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: [.isRegularFileKey])!
        for case let url as URL in enumerator where (try url.resourceValues(forKeys: [.isRegularFileKey])).isRegularFile == true {
            found[String(url.path.dropFirst(directory.path.count + 1))] = try Data(contentsOf: url)
        }
        return found
    }

    /// A folder of rendered frames with a corrupt file among them, a second picture whose name stem
    /// repeats one (its annotated copy gets `-2`), and ArUco's test video in the middle of the images.
    static func mixedFolder(in dir: URL) throws -> URL {
        #expect(try CLI.run(["render", "--seed", "5", "--count", "5", "--size", "640x480", "-o", "frames"], in: dir).status == 0)
        let frames = dir.appendingPathComponent("frames")
        try FileManager.default.removeItem(at: frames.appendingPathComponent("truth.json"))
        try Data("not a png".utf8).write(to: frames.appendingPathComponent("scene_001b.png"))
        // PNG bytes under another extension: OpenCV reads the content, the stem repeats scene_002's.
        try FileManager.default.copyItem(at: frames.appendingPathComponent("scene_002.png"), to: frames.appendingPathComponent("scene_002.bmp"))
        try FileManager.default.copyItem(at: photos.appendingPathComponent("image-test.png"), to: frames.appendingPathComponent("photo.png"))
        try FileManager.default.copyItem(at: photos.appendingPathComponent("video.avi"), to: frames.appendingPathComponent("scene_003v.avi"))
        return frames
    }

    @Test func detectWritesTheSameForAnyNumberOfJobs() throws {
        let dir = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        _ = try Self.mixedFolder(in: dir)
        let pose = ["--calibration", Self.photos.appendingPathComponent("intrinsics.yml").path, "--marker-size", "5cm"]
        var runs: [(jobs: String, result: CLI.Result, json: Data, annotated: [String: Data])] = []
        for jobs in ["1", "3"] {
            let result = try CLI.run(["detect", "frames", "--json", "out-\(jobs).json", "--annotate", "annotated-\(jobs)", "--jobs", jobs] + pose, in: dir)
            runs.append((jobs, result, try Data(contentsOf: dir.appendingPathComponent("out-\(jobs).json")),
                         try Self.contents(of: dir.appendingPathComponent("annotated-\(jobs)"))))
        }
        let (one, three) = (runs[0], runs[1])
        // A partial failure: the corrupt file named once on stderr, exit 1, the rest processed.
        #expect(one.result.status == 1 && three.result.status == 1)
        #expect(one.result.stderrLines.filter { $0.hasPrefix("markerkit: error:") }.count == 1 && one.result.stderr.contains("scene_001b.png"))
        #expect(one.result.stdout.contains("frames/scene_003v.avi: 145 frames, 819 detections"), "\(one.result.stdout)")
        #expect(Set(one.annotated.keys) == ["photo.png", "scene_000.png", "scene_001.png", "scene_002.png", "scene_002-2.png",
                                             "scene_003.png", "scene_003v.avi", "scene_004.png"])
        #expect(three.result.stdout == one.result.stdout.replacingOccurrences(of: "annotated-1", with: "annotated-3"))
        #expect(three.result.stderr == one.result.stderr)
        #expect(three.json == one.json, "--json differs between --jobs 1 and --jobs 3")
        #expect(three.annotated == one.annotated, "annotated files differ between --jobs 1 and --jobs 3")

        // JSON lines to stdout, frame by frame, in the same order.
        let lines1 = try CLI.run(["detect", "frames", "--jsonl", "--jobs", "1"], in: dir)
        let lines2 = try CLI.run(["detect", "frames", "--jsonl", "--jobs", "2"], in: dir)
        #expect(lines1.status == 1 && lines2.status == 1)
        #expect(lines1.stdout.split(separator: "\n").count == 7 + 145, "7 images and the video's frames")
        #expect(lines2.stdout == lines1.stdout, "--jsonl differs between --jobs 1 and --jobs 2")
        #expect(lines2.stderr == lines1.stderr)
    }

    /// The JSON of `verify markers` without its times (each detector's own time per image, which differs
    /// from run to run whatever the number of jobs).
    static func timeless(_ data: Data) throws -> Data {
        func strip(_ value: Any) -> Any {
            if let object = value as? [String: Any] {
                return object.filter { !["seconds", "secondsP50"].contains($0.key) }.mapValues(strip)
            }
            if let array = value as? [Any] { return array.map(strip) }
            return value
        }
        return try JSONSerialization.data(withJSONObject: strip(try JSONSerialization.jsonObject(with: data)), options: [.sortedKeys])
    }

    /// The table without the last column of the detector rows (ms P50).
    static func timeless(table: String) -> [String] {
        table.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            ["markerkit ", "opencv ", "opencv-subpix "].contains { line.hasPrefix($0) }
                ? line.split(separator: " ").dropLast().joined(separator: " ") : String(line)
        }
    }

    @Test func verifyMarkersGivesTheSameFiguresForAnyNumberOfJobs() throws {
        let dir = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let sampled = ["verify", "markers", "--renders", "10", "--size", "480x360", "--seed", "11"]
        let one = try CLI.run(sampled + ["--json", "v1.json", "--jobs", "1"], in: dir)
        let three = try CLI.run(sampled + ["--json", "v3.json", "--jobs", "3"], in: dir)
        #expect(one.status == 0 && three.status == 0, "\(one.stderr)\(three.stderr)")
        #expect(Self.timeless(table: three.stdout.replacingOccurrences(of: "v3.json", with: "v1.json")) == Self.timeless(table: one.stdout))
        let json1 = try Data(contentsOf: dir.appendingPathComponent("v1.json")), json3 = try Data(contentsOf: dir.appendingPathComponent("v3.json"))
        #expect(try Self.timeless(json3) == Self.timeless(json1))
        #expect(json1.count > 1000)

        #expect(try CLI.run(["render", "--count", "5", "--size", "480x360", "--seed", "4", "-o", "set"], in: dir).status == 0)
        let truth1 = try CLI.run(["verify", "markers", "--truth", "set", "--json", "t1.json", "--jobs", "1"], in: dir)
        let truth2 = try CLI.run(["verify", "markers", "--truth", "set", "--json", "t2.json", "--jobs", "2"], in: dir)
        #expect(truth1.status == 0 && truth2.status == 0)
        #expect(Self.timeless(table: truth2.stdout.replacingOccurrences(of: "t2.json", with: "t1.json")) == Self.timeless(table: truth1.stdout))
        #expect(try Self.timeless(Data(contentsOf: dir.appendingPathComponent("t2.json"))) == Self.timeless(Data(contentsOf: dir.appendingPathComponent("t1.json"))))
    }

    @Test func calibrateFindsTheSameBoardsForAnyNumberOfJobs() throws {
        let dir = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let views = dir.appendingPathComponent("views")
        try FileManager.default.createDirectory(at: views, withIntermediateDirectories: false)
        let boards = Self.fixtures.appendingPathComponent("chessboard-opencv-9x6")
        for name in try FileManager.default.contentsOfDirectory(atPath: boards.path) where name.hasSuffix(".jpg") {
            try FileManager.default.copyItem(at: boards.appendingPathComponent(name), to: views.appendingPathComponent(name))
        }
        // Not used, each for its reason: unreadable, no board, a board in an image of another size.
        try Data("not a jpeg".utf8).write(to: views.appendingPathComponent("left05b.jpg"))
        try FileManager.default.copyItem(at: Self.photos.appendingPathComponent("image-test.png"), to: views.appendingPathComponent("left06b.png"))
        #expect(try CLI.run(["generate", "checkerboard", "--inner", "9x6", "--square", "20mm", "--dpi", "40", "-o", "views/z.png"], in: dir).status == 0)
        try FileManager.default.removeItem(at: views.appendingPathComponent("z.json"))
        var outputs: [(stdout: [String], json: Any)] = []
        for jobs in ["1", "3"] {
            let result = try CLI.run(["calibrate", "views", "--inner", "9x6", "--square", "1mm", "-o", "cal-\(jobs).json", "--jobs", jobs], in: dir)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdout.contains("calibrated from 13 of 16 images"), "\(result.stdout)")
            for reason in ["left05b.jpg: unreadable", "left06b.png: no board found", "z.png: image size"] {
                #expect(result.stdout.contains("not used: views/\(reason)"), "\(result.stdout)")
            }
            // Everything but the time of the calibration.
            let stdout = result.stdout.split(separator: "\n").map(String.init)
                .filter { !$0.hasPrefix("  calibrated ") }.map { $0.replacingOccurrences(of: "cal-\(jobs)", with: "cal") }
            var json = try JSONSerialization.jsonObject(with: Data(contentsOf: dir.appendingPathComponent("cal-\(jobs).json"))) as! [String: Any]
            json = json.mapValues { value in
                guard var object = value as? [String: Any] else { return value }
                object["calibration_time"] = nil
                return object
            }
            json["calibration_time"] = nil
            outputs.append((stdout, json))
        }
        #expect(outputs[1].stdout == outputs[0].stdout)
        #expect(NSDictionary(dictionary: outputs[1].json as! [String: Any]).isEqual(to: outputs[0].json as! [String: Any]))
        #expect((String(data: try JSONSerialization.data(withJSONObject: outputs[0].json), encoding: .utf8) ?? "").contains("per_view"))
    }

    static let badCases: [(arguments: [String], status: Int32, says: String)] = [
        (["detect", "frames", "--jobs", "0"], 64, "--jobs 0 is outside 1-1024"),
        (["detect", "frames", "--jobs=-2", "--json", "out.json"], 64, "--jobs -2 is outside 1-1024"),
        (["detect", "frames", "--jobs", "two"], 64, "'two' is invalid for '--jobs"),
        (["verify", "markers", "--renders", "2", "--jobs", "0", "--json", "v.json"], 64, "--jobs 0 is outside 1-1024"),
        (["calibrate", "frames", "--inner", "9x6", "--square", "1mm", "--name", "c", "--jobs", "5000"], 64, "--jobs 5000 is outside 1-1024"),
    ]

    @Test(arguments: 0..<badCases.count)
    func badJobsGetOneLine(index: Int) throws {
        let (arguments, status, says) = Self.badCases[index]
        let dir = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("frames"), withIntermediateDirectories: false)
        try FileManager.default.copyItem(at: Self.photos.appendingPathComponent("image-test.png"), to: dir.appendingPathComponent("frames/a.png"))
        let before = try files(in: dir)
        let result = try CLI.run(arguments, in: dir)
        #expect(result.status == status, "\(arguments): \(result.stderr)")
        #expect(result.stderrLines.count == 1 && result.stderr.hasPrefix("markerkit: error: ") && result.stderr.contains(says),
                "\(arguments): \(result.stderr)")
        #expect(result.stdout.isEmpty)
        #expect(try files(in: dir) == before, "no output left behind")
    }

    @Test func helpNamesJobs() throws {
        let dir = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        for command in [["detect"], ["verify", "markers"], ["calibrate"]] {
            let help = try CLI.run(command + ["--help"], in: dir)
            #expect(help.stdout.contains("--jobs <n>") && help.stdout.contains("(default: every"), "\(command)")
        }
    }
}

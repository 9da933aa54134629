import Foundation
import Testing

/// Rough edges a newcomer hit, each as the newcomer typed it.
@Suite struct NewcomerCLITests {
    /// A mistyped command gets the nearest name, or the list when none is close; one line, exit 64.
    @Test(arguments: [(["calibrte", "photos"], "unknown command 'calibrte' for markerkit; did you mean 'calibrate'?"),
                      (["calibrations", "lsit"], "unknown command 'lsit' for markerkit calibrations; did you mean 'list'?"),
                      (["help", "genrate"], "did you mean 'generate'?"),
                      (["frobnicate"], "unknown command 'frobnicate' for markerkit (commands: generate, detect,"),
                      ([String(repeating: "x", count: 100_000)], "unknown command '\(String(repeating: "x", count: 40))...' for markerkit")])
    func aMistypedCommandGetsTheNearestName(arguments: [String], message: String) throws {
        let dir = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let run = try CLI.run(arguments, in: dir)
        #expect(run.status == 64 && run.stderrLines.count == 1 && run.stderr.contains(message), "\(run.status) \(run.stderr)")
    }

    /// "--size -5mm" was "Missing value for '--size <length>'": the parser took the value for an option.
    /// Now the size's own check refuses it.
    @Test func aNegativeValueIsRefusedForWhatItIs() throws {
        let dir = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let run = try CLI.run(["generate", "markers", "--ids", "0", "--size", "-5mm", "-o", "s.pdf"], in: dir)
        #expect(run.status == 64 && run.stderrLines.count == 1, "\(run.stderr)")
        #expect(!run.stderr.contains("Missing value") && run.stderr.contains("-5mm") && run.stderr.contains("greater than zero"), "\(run.stderr)")
        #expect(try files(in: dir).isEmpty)
    }

    /// No option's help says its default twice ("(default: 60). (default: 60)": the parser adds the
    /// default of an option that has one).
    @Test func noHelpSaysADefaultTwice() throws {
        let dir = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let dump = try CLI.run(["--experimental-dump-help"], in: dir)
        try #require(dump.status == 0)
        let root = try #require(try JSONSerialization.jsonObject(with: Data(dump.stdout.utf8)) as? [String: Any])
        var twice: [String] = [], options = 0
        func walk(_ command: [String: Any], path: String) {
            for sub in command["subcommands"] as? [[String: Any]] ?? [] { walk(sub, path: path + " " + (sub["commandName"] as? String ?? "?")) }
            for argument in command["arguments"] as? [[String: Any]] ?? [] {
                options += 1
                let abstract = (argument["abstract"] as? String ?? "").lowercased()
                if let value = (argument["defaultValue"] as? String)?.lowercased(),
                   abstract.contains("default \(value)") || abstract.contains("default: \(value)") {
                    twice.append("\(path) \(argument["valueName"] as? String ?? ""): \(abstract)")
                }
            }
        }
        walk(root["command"] as? [String: Any] ?? [:], path: "markerkit")
        #expect(options > 100)
        #expect(twice.isEmpty, "\(twice)")
    }

    /// No command's discussion has a run of spaces inside a line: verify pose's help read "per 1000,
    /// the RMS" with nine spaces where a line break of its source lost its backslash.
    @Test func noHelpHasARunOfSpacesInsideALine() throws {
        let dir = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let dump = try CLI.run(["--experimental-dump-help"], in: dir)
        try #require(dump.status == 0)
        let root = try #require(try JSONSerialization.jsonObject(with: Data(dump.stdout.utf8)) as? [String: Any])
        var gaps: [String] = [], commands = 0
        func walk(_ command: [String: Any], path: String) {
            commands += 1
            for sub in command["subcommands"] as? [[String: Any]] ?? [] { walk(sub, path: path + " " + (sub["commandName"] as? String ?? "?")) }
            for line in (command["discussion"] as? String ?? "").split(separator: "\n") {
                // Indented lines (examples) line up their comments with spaces; in prose three are a gap.
                if !line.hasPrefix(" "), line.contains("   ") { gaps.append("\(path): \(line)") }
            }
        }
        walk(root["command"] as? [String: Any] ?? [:], path: "markerkit")
        #expect(commands > 20)
        #expect(gaps.isEmpty, "\(gaps)")
    }

    /// "1 markers"; "on marker 213 (64.286 x 69.536 mm)" where the page belongs.
    @Test func summariesReadAsSentences() throws {
        let dir = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let sheet = try CLI.run(["generate", "markers", "--ids", "213", "--size", "50mm", "-o", "one.pdf"], in: dir)
        #expect(sheet.status == 0 && sheet.stdout.contains("1 marker of DICT_ARUCO_ORIGINAL, 50 mm, 6 per page on 1 page of A4 (210 x 297 mm)"), "\(sheet.stdout)")
        let single = try CLI.run(["generate", "marker", "213", "--size", "50mm", "-o", "m.pdf"], in: dir)
        #expect(single.status == 0 && single.stdout.contains("marker 213 of DICT_ARUCO_ORIGINAL, 50 mm, on 64.286 x 69.536 mm"), "\(single.stdout)")
        let custom = try CLI.run(["generate", "markers", "--ids", "0-1", "--size", "50mm", "--page", "100x200mm", "-o", "c.pdf"], in: dir)
        #expect(custom.status == 0 && custom.stdout.contains("on 1 page of 100 x 200 mm"), "\(custom.stdout)")
    }

    /// A board's spec held "y": 22.900000000000006 (the origin, a sum of lengths).
    @Test func boardSpecsHoldNoBinaryFractions() throws {
        let dir = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        for (n, arguments) in [["checkerboard", "--inner", "9x6", "--square", "20mm"],
                               ["charuco", "--squares", "5x7", "--square", "22.9mm", "--marker", "17mm"]].enumerated() {
            let run = try CLI.run(["generate"] + arguments + ["-o", "b\(n).pdf"], in: dir)
            try #require(run.status == 0, "\(run.stderr)")
            let spec = try String(contentsOf: dir.appendingPathComponent("b\(n).json"), encoding: .utf8)
            #expect(spec.range(of: "[0-9]\\.[0-9]*(0000000|9999999)", options: .regularExpression) == nil, "\(spec)")
        }
    }

    /// The top-level help named only DICT_ARUCO_ORIGINAL; every dictionary is read.
    @Test func topLevelHelpNamesEveryDictionary() throws {
        let dir = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let help = try CLI.run(["--help"], in: dir)
        for name in ["4x4_50", "6x6_250", "7x7_1000", "apriltag_36h11", "aruco-original"] {
            #expect(help.stdout.contains(name), "\(name) in \(help.stdout)")
        }
    }
}

extension NewcomerCLITests {
    /// `track` on a clip with no markers printed "IDs ," (an empty list) and "1 markers" counts.
    @Test func trackOnAClipWithoutMarkersSaysNoIDs() throws {
        let dir = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let clip = try CLI.run(["render", "--clip", "2", "--size", "320x240", "-o", "clip.avi"], in: dir)
        try #require(clip.status == 0, "\(clip.stderr)")
        let track = try CLI.run(["track", "--device", "clip.avi"], in: dir)
        #expect(track.status == 0, "\(track.stderr)")
        #expect(track.stdout.contains("frames, 0 detections, ") && !track.stdout.contains("IDs"), "\(track.stdout)")
    }
}

extension NewcomerCLITests {
    /// A parser's list of allowed values was printed with ";" for its line breaks.
    @Test func aBadChoiceListsTheChoicesOnOneLine() throws {
        let dir = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let run = try CLI.run(["calibrations", "export", "webcam", "--format", "rosyaml", "-o", "x.yaml"], in: dir)
        #expect(run.status == 64 && run.stderrLines.count == 1, "\(run.stderr)")
        #expect(run.stderr.contains("'--format <format>'. Use one of: opencv-yaml, opencv-xml, ros, kalibr, colmap, mrcal, json (a camera); opencv-stereo, ros, kalibr, mrcal (a rig)"), "\(run.stderr)")
    }

    /// `help bench` named the developers' folders (../shared/data, .build/release).
    @Test func benchHelpNamesNoDevelopersFolder() throws {
        let dir = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let help = try CLI.run(["help", "bench"], in: dir)
        #expect(help.status == 0 && help.stdout.contains("markerkit bench --quick"))
        #expect(!help.stdout.contains("../shared") && !help.stdout.contains(".build/"), "\(help.stdout)")
    }
}

extension NewcomerCLITests {
    /// `calibrate` on a folder left its .yml files and videos out without a word (`detect` notes them).
    @Test func calibrateNotesWhatItLeavesOut() throws {
        let dir = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let render = try CLI.run(["render", "--board", "charuco", "--count", "2", "--size", "320x240", "-o", "views"], in: dir)
        try #require(render.status == 0, "\(render.stderr)")
        try Data("%YAML:1.0\n".utf8).write(to: dir.appendingPathComponent("views/old.yml"))
        try Data().write(to: dir.appendingPathComponent("views/clip.avi"))
        // Two views of a ChArUco board searched for a chessboard: the run fails, after the notes.
        let run = try CLI.run(["calibrate", "views", "--inner", "9x6", "--square", "30mm", "--name", "n"], in: dir)
        #expect(run.stderr.contains("old.yml") && run.stderr.contains("skipped 1 video (clip.avi)"), "\(run.stderr)")
    }

    /// `serve` on a video file played it from the server's start, so what a page opened a few seconds later
    /// saw began halfway through: now it waits for the first page or API call.
    @Test func serveOnAVideoWaitsForSomeoneToWatch() throws {
        let dir = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let server = try ServeSecurityTests.serve(in: dir)
        Thread.sleep(forTimeInterval: 2)
        let first = try JSONSerialization.jsonObject(with: try server.api("/api/status").body) as? [String: Any] ?? [:]
        #expect((first["frames"] as? Int ?? 99) <= 1, "frames went by before anyone watched: \(first)")
        Thread.sleep(forTimeInterval: 2)
        let later = try JSONSerialization.jsonObject(with: try server.api("/api/status").body) as? [String: Any] ?? [:]
        #expect((later["frames"] as? Int ?? 0) >= 5 && later["phase"] as? String != "waiting for a page", "\(later)")
        _ = try server.interrupt()
    }
}

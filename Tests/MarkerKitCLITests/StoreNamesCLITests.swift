import Foundation
import Testing

/// Calibration names as `markerkit calibrations` takes them: one name however it is typed,
/// invisible characters and overlong names refused with exit 64, and a file in the working folder never
/// standing in for the stored calibration of its name.
@Suite struct StoreNamesCLITests {
    static func calibration(fx: Int) -> Data {
        Data("%YAML:1.0\n---\ncamera_matrix: !!opencv-matrix\n   rows: 3\n   cols: 3\n   dt: d\n   data: [ \(fx)., 0., 320., 0., \(fx)., 240., 0., 0., 1. ]\nimage_width: 640\nimage_height: 480\n".utf8)
    }

    @Test func namesAreOneEntryHoweverTypedAndInvisibleOrLongOnesAreRefused() throws {
        let dir = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try Self.calibration(fx: 500).write(to: dir.appendingPathComponent("cal.yaml"))
        let nfc = "cam\u{E9}ra", nfd = "came\u{301}ra"
        let first = try CLI.run(["calibrations", "import", "cal.yaml", "--name", nfd], in: dir)
        #expect(first.status == 0 && first.stdout.contains("stored \(dir.path)/Calibrations/\(nfc).yaml"), "\(first.stderr)")
        let again = try CLI.run(["calibrations", "import", "cal.yaml", "--name", nfc], in: dir)
        #expect(again.status == 73 && again.stderr.contains("exists: add --force"), "\(again.stderr)")
        let list = try CLI.run(["calibrations", "list"], in: dir)
        let lines = list.stdout.split(separator: "\n")
        #expect(lines.count == 2 && lines[0] == "1 calibration in \(dir.path)/Calibrations/ (named by MARKERKIT_CALIBRATIONS)"
                && lines[1].hasPrefix(nfc), "\(list.stdout)")
        #expect(try CLI.run(["calibrations", "show", nfd], in: dir).status == 0)

        for (name, says) in [("web\u{200D}cam", "U+200D"), (String(repeating: "\u{301}", count: 300), "bytes"),
                             (String(repeating: "a", count: 101), "101 bytes"), ("\u{301}cam", "combining mark")] {
            let refused = try CLI.run(["calibrations", "import", "cal.yaml", "--name", name], in: dir)
            #expect(refused.status == 64 && refused.stderr.contains("--name: calibration name") && refused.stderr.contains(says),
                    "\(refused.status) \(refused.stderr)")
            #expect(refused.stderrLines.count == 1 && !refused.stderr.contains(dir.path))
        }
        #expect(try files(in: dir.appendingPathComponent("Calibrations")) == ["\(nfc).yaml"])
    }

    /// Before: `--calibration webcam` read a file named webcam in the working folder when there was one.
    @Test func aFileInTheWorkingFolderDoesNotShadowTheStoredCalibration() throws {
        let dir = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = dir.appendingPathComponent("Calibrations")
        try FileManager.default.createDirectory(at: store, withIntermediateDirectories: false)
        try Self.calibration(fx: 500).write(to: store.appendingPathComponent("webcam.yaml"))
        try Self.calibration(fx: 777).write(to: dir.appendingPathComponent("webcam"))
        let shown = try CLI.run(["calibrations", "show", "webcam"], in: dir)
        #expect(shown.status == 0 && shown.stdout.contains("500") && !shown.stdout.contains("777"), "\(shown.stdout)")
        // The file is read when named as a path.
        let file = try CLI.run(["calibrations", "show", "./webcam"], in: dir)
        #expect(file.status == 0 && file.stdout.contains("777"), "\(file.stdout) \(file.stderr)")
        // A bare name not in the store is not read from the working folder either; the message says how.
        try Self.calibration(fx: 888).write(to: dir.appendingPathComponent("other"))
        let other = try CLI.run(["calibrations", "show", "other"], in: dir)
        #expect(other.status == 66 && other.stderr.contains("give ./other"), "\(other.stderr)")
        // Messages name the store's files by absolute path, wherever the store is.
        let exists = try CLI.run(["calibrations", "import", "webcam.yaml", "--name", "webcam"], in: store,
                                 environment: ["MARKERKIT_CALIBRATIONS": store.path])
        #expect(exists.status == 73 && exists.stderr == "markerkit: error: '\(store.path)/webcam.yaml' exists: add --force to replace it\n",
                "\(exists.stderr)")
    }
}

/// Where the store is: before, it was `./Calibrations` of whatever folder one stood in, so a
/// calibration stored from one folder was "not a name in Calibrations/" from the next.
@Suite struct StoreLocationCLITests {
    @Test func aNameStoredFromOneFolderIsFoundFromAnotherAndMessagesSayWhichStore() throws {
        let dir = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let data = dir.appendingPathComponent("data"), here = dir.appendingPathComponent("here"), there = dir.appendingPathComponent("there")
        for folder in [here, there] { try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false) }
        try StoreNamesCLITests.calibration(fx: 500).write(to: here.appendingPathComponent("cal.yaml"))
        // No MARKERKIT_CALIBRATIONS and no Calibrations/ where one works: the user's data folder.
        let user = ["MARKERKIT_CALIBRATIONS": "", "XDG_DATA_HOME": data.path]
        let userStore = data.appendingPathComponent("markerkit/calibrations").path
        let stored = try CLI.run(["calibrations", "import", "cal.yaml", "--name", "webcam"], in: here, environment: user)
        #expect(stored.status == 0 && stored.stdout.hasPrefix("stored \(userStore)/webcam.yaml\n"), "\(stored.stdout) \(stored.stderr)")
        let shown = try CLI.run(["calibrations", "show", "webcam"], in: there, environment: user)
        #expect(shown.status == 0 && shown.stdout.contains("500"), "\(shown.stderr)")
        let list = try CLI.run(["calibrations", "list"], in: there, environment: user)
        #expect(list.stdout.hasPrefix("1 calibration in \(userStore)/ (your data folder: the working folder has no Calibrations/"), "\(list.stdout)")
        // Without XDG_DATA_HOME: ~/.local/share.
        let home = try CLI.run(["calibrations", "list"], in: there, environment: ["MARKERKIT_CALIBRATIONS": "", "XDG_DATA_HOME": "", "HOME": dir.path])
        #expect(home.stdout.hasPrefix("no calibrations in \(dir.path)/.local/share/markerkit/calibrations/ (your data folder: the working folder has no Calibrations/"), "\(home.stdout)")
        // A project's own Calibrations/ is its store, and a name not there says which store was searched.
        try FileManager.default.createDirectory(at: there.appendingPathComponent("Calibrations"), withIntermediateDirectories: false)
        let project = try CLI.run(["calibrations", "list"], in: there, environment: user)
        #expect(project.stdout == "no calibrations in \(there.path)/Calibrations/ (the working folder's own Calibrations/)\n", "\(project.stdout)")
        let missing = try CLI.run(["detect", "nothing.png", "--calibration", "webcam"], in: there, environment: user)
        #expect(missing.status == 66 && missing.stderrLines.count == 1
                && missing.stderr.contains("no calibration 'webcam': not a name in \(there.path)/Calibrations/"), "\(missing.stderr)")
        // MARKERKIT_CALIBRATIONS comes first, a relative one taken from the working folder.
        let named = try CLI.run(["calibrations", "show", "webcam"], in: dir, environment: ["MARKERKIT_CALIBRATIONS": "data/markerkit/calibrations"])
        #expect(named.status == 0 && named.stdout.contains("500"), "\(named.stderr)")
    }
}

import Foundation
import Testing

/// The real `markerkit` binary, run as a user runs it.
struct CLI {
    /// The build's markerkit, or the one MARKERKIT_CLI names (to measure a release build with the same tests).
    static var binary: URL {
        if let path = ProcessInfo.processInfo.environment["MARKERKIT_CLI"] { return URL(fileURLWithPath: path) }
        let directory = Bundle.main.executableURL!.deletingLastPathComponent()
        return directory.appendingPathComponent("markerkit")
    }

    struct Result {
        let status: Int32
        let stdout: String
        let stderr: String
        var stderrLines: [Substring] { stderr.split(separator: "\n") }
    }

    /// markerkit, not started yet, in `directory` with its calibration store at `directory/Calibrations`
    /// (for tests that signal it while it runs).
    static func process(_ arguments: [String], in directory: URL) -> Process {
        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
        process.currentDirectoryURL = directory
        var environment = childEnvironment()
        environment["MARKERKIT_CALIBRATIONS"] = directory.appendingPathComponent("Calibrations").path
        process.environment = environment
        return process
    }

    /// The tests' environment for a markerkit run. Under `make sanitize` (AddressSanitizer) a run's
    /// leak check is off: what a process holds when it exits is not a leak, and Swift keeps object
    /// pointers in the spare bits of enum payloads (Data, NIO's boxes), which LeakSanitizer cannot follow,
    /// so it reports objects still in use. Leaks are looked for in the test process; memory errors in
    /// every run.
    static func childEnvironment(_ extra: [String: String] = [:]) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment.merging(extra) { $1 }
        if let options = environment["ASAN_OPTIONS"] { environment["ASAN_OPTIONS"] = options + ":detect_leaks=0" }
        return environment
    }

    /// A time limit of a test that runs markerkit, stretched under a sanitizer (MARKERKIT_TIME_SCALE, set
    /// by scripts/sanitize: instrumented code runs 2-20 times slower).
    static func seconds(_ limit: Double) -> Double {
        limit * (ProcessInfo.processInfo.environment["MARKERKIT_TIME_SCALE"].flatMap(Double.init) ?? 1)
    }

    /// markerkit started as `process` makes it, its output going to the files `<name>stdout.txt` and
    /// `<name>stderr.txt` in `directory` (not pipes, which could fill and stop it while a test waits).
    final class Started {
        let process: Process
        let outFile: URL, errFile: URL

        /// `descriptorLimit`: started under `prlimit --nofile`, as a machine with few descriptors runs it.
        init(_ arguments: [String], in directory: URL, filePrefix: String, environment: [String: String] = [:], descriptorLimit: Int? = nil) throws {
            process = CLI.process(arguments, in: directory)
            if let descriptorLimit {
                process.arguments = ["--nofile=\(descriptorLimit):\(descriptorLimit)", "--", CLI.binary.path] + arguments
                process.executableURL = URL(fileURLWithPath: "/usr/bin/prlimit")
            }
            process.environment = process.environment?.merging(environment) { $1 }
            outFile = directory.appendingPathComponent(filePrefix + "stdout.txt")
            errFile = directory.appendingPathComponent(filePrefix + "stderr.txt")
            _ = FileManager.default.createFile(atPath: outFile.path, contents: nil)
            _ = FileManager.default.createFile(atPath: errFile.path, contents: nil)
            process.standardOutput = try FileHandle(forWritingTo: outFile)
            process.standardError = try FileHandle(forWritingTo: errFile)
            try process.run()
        }

        /// What it wrote, once it has exited; the files are removed.
        func output() throws -> (stdout: String, stderr: String) {
            let stdout = String(decoding: try Data(contentsOf: outFile), as: UTF8.self)
            let stderr = String(decoding: try Data(contentsOf: errFile), as: UTF8.self)
            try FileManager.default.removeItem(at: outFile)
            try FileManager.default.removeItem(at: errFile)
            return (stdout, stderr)
        }
    }

    /// markerkit run in `directory` to its end, with its calibration store at `directory/Calibrations`
    /// unless `environment` says otherwise (never the user's own store).
    static func run(_ arguments: [String], in directory: URL, executable: String? = nil, environment: [String: String] = [:]) throws -> Result {
        let process = Process()
        process.executableURL = executable.map { URL(fileURLWithPath: $0) } ?? binary
        process.arguments = arguments
        process.currentDirectoryURL = directory
        process.environment = childEnvironment(["MARKERKIT_CALIBRATIONS": directory.appendingPathComponent("Calibrations").path]
            .merging(environment) { $1 })
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationReason == .exit, "markerkit \(arguments) died of a signal")
        return Result(status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
                      stderr: String(decoding: stderr, as: UTF8.self))
    }
}

func makeDirectory() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("markerkit-cli-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

func files(in directory: URL) throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
}

@Suite struct CLIBasicsTests {
    /// OpenCV's imgcodecs and videoio (GDAL, FFmpeg, GStreamer: about 210 shared objects) and highgui are
    /// loaded on first use, not at start: a command that reads no image, video or window loads none.
    @Test func startUpLoadsNoImageVideoOrWindowLibrary() throws {
        let dir = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        // glibc's loader names every library it loads on stderr.
        let version = try CLI.run(["--version"], in: dir, environment: ["LD_DEBUG": "files"])
        #expect(version.status == 0)
        #expect(version.stderr.contains("libopencv_core"), "LD_DEBUG lists the libraries loaded")
        for library in ["libopencv_imgcodecs", "libopencv_videoio", "libopencv_highgui"] {
            #expect(!version.stderr.contains(library), "markerkit --version loads \(library)")
        }
    }

    @Test func versionAndHelpWithExamples() throws {
        let dir = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let version = try CLI.run(["--version"], in: dir)
        #expect(version.status == 0 && version.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "0.1.0")
        for command in [["generate", "markers"], ["generate", "marker"], ["generate", "checkerboard"], ["generate", "dictionary"]] {
            let help = try CLI.run(command + ["--help"], in: dir)
            #expect(help.status == 0)
            #expect(help.stdout.contains("Examples:"), "\(command) --help shows examples")
            #expect(help.stdout.contains("markerkit \(command.joined(separator: " "))"))
        }
        #expect(try CLI.run(["--help"], in: dir).stdout.contains("Exit codes"))
        // Every command's help reads as prose: no stray line-continuation backslashes, and examples.
        for command in [["detect"], ["calibrate"], ["calibrations"], ["undistort"], ["render"], ["verify", "markers"],
                        ["verify", "calibration"], ["capture"], ["track"], ["bench"]] {
            let help = try CLI.run(command + ["--help"], in: dir)
            #expect(help.status == 0 && help.stdout.contains("Examples:"), "\(command)")
            #expect(!help.stdout.contains("\\"), "\(command) --help shows a backslash")
        }
        // The dictionaries are listed once, by the argument parser (the option's text listed them again).
        for command in [["detect"], ["track"], ["render"], ["generate", "markers"], ["generate", "charuco"]] {
            let help = try CLI.run(command + ["--help"], in: dir).stdout
            #expect(help.components(separatedBy: "apriltag_36h10").count == 2, "\(command) --help lists the dictionaries \(help.components(separatedBy: "apriltag_36h10").count - 1) times")
        }
    }

    @Test func generateWritesEveryFormatAndTheBoardSpec() throws {
        let dir = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let sheet = try CLI.run(["generate", "markers", "--ids", "250-260", "--size", "40mm", "-o", "sheet.svg"], in: dir)
        #expect(sheet.status == 0)
        #expect(sheet.stderrLines.count == 1 && sheet.stderr.contains("left out ambiguous ID 255"))
        #expect(try files(in: dir) == ["sheet.json", "sheet.svg"], "the sheet and its marker map")
        let board = try CLI.run(["generate", "checkerboard", "--inner", "9x6", "--square", "20mm", "-o", "board.pdf"], in: dir)
        #expect(board.status == 0 && board.stderr.isEmpty)
        #expect(try files(in: dir) == ["board.json", "board.pdf", "sheet.json", "sheet.svg"])
        #expect(board.stdout.contains("wrote \(dir.appendingPathComponent("board.json").path)"))
        let marker = try CLI.run(["generate", "marker", "1023", "--size", "2in", "-o", "m.png", "--dpi", "150"], in: dir)
        #expect(marker.status == 0 && marker.stderr.contains("symmetric"))
    }
}

/// Bad input: one clear line on stderr, a documented non-zero exit, no file left behind, nothing overwritten.
@Suite struct CLIBadInputTests {
    static let cases: [(arguments: [String], status: Int32, says: String)] = [
        (["generate", "markers", "--ids", "1024", "--size", "40mm", "-o", "s.pdf"], 64, "outside 0-1023"),
        (["generate", "markers", "--ids", "5-3", "--size", "40mm", "-o", "s.pdf"], 64, "runs backwards"),
        (["generate", "markers", "--ids", "0-3", "--size", "0mm", "-o", "s.pdf"], 64, "greater than zero"),
        (["generate", "markers", "--ids", "0-3", "--size", "40", "-o", "s.pdf"], 64, "has no unit"),
        (["generate", "markers", "--ids", "0-3", "--size", "40mm", "--gap=-2mm", "-o", "s.pdf"], 64, "must not be negative"),
        (["generate", "markers", "--ids", "0-3", "--size", "300mm", "-o", "s.pdf"], 64, "the largest that fits is"),
        (["generate", "marker", "5", "--size", "300mm", "--page", "a5", "-o", "s.pdf"], 64, "the largest that fits is"),
        (["generate", "checkerboard", "--inner", "9x6", "--square", "25mm", "-o", "b.pdf"], 64, "the largest square that fits is"),
        (["generate", "checkerboard", "--inner", "9-6", "--square", "25mm", "-o", "b.pdf"], 64, "--inner"),
        (["generate", "markers", "--ids", "0-3", "--size", "40mm", "--page", "a7", "-o", "s.pdf"], 64, "unknown page 'a7'"),
        (["generate", "markers", "--ids", "0-3", "--size", "40mm", "-o", "missing/s.pdf"], 73, "does not exist"),
        (["generate", "markers", "--ids", "0-3", "--size", "40mm", "-o", "s.jpg"], 73, "unknown extension '.jpg'"),
        (["generate", "markers", "--ids", "0-3", "--size", "40mm", "-o", "s"], 73, "no extension"),
        (["generate", "marker", "1024", "--size", "40mm", "-o", "m.pdf"], 64, "outside 0-1023"),
        (["generate", "markers", "--size", "40mm", "-o", "s.pdf"], 64, "--ids"),
        (["generate", "markers", "--ids", "0-3", "--size", "40mm", "--dpi", "0", "-o", "s.png"], 64, "--dpi"),
        (["generate", "dictionary", "--size", "200mm", "--page", "a5", "-o", "all.pdf"], 64, "does not fit"),
        (["generate", "markers", "--ids", "0", "--size", "100mm", "--page", "a0", "--dpi", "4800", "-o", "s.png"], 64, "--dpi: at 4800 dpi, A0 (841 x 1189 mm) is 158929 x 224693 pixels"),
    ]

    @Test(arguments: 0..<cases.count)
    func oneClearLineAndNoFile(index: Int) throws {
        let (arguments, status, says) = Self.cases[index]
        let dir = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let old = Data("earlier result".utf8)
        try old.write(to: dir.appendingPathComponent("keep.pdf"))
        let result = try CLI.run(arguments, in: dir)
        #expect(result.status == status, "\(arguments): \(result.stderr)")
        #expect(result.stderrLines.count == 1, "\(arguments): \(result.stderr)")
        #expect(result.stderr.hasPrefix("markerkit: error: "))
        #expect(result.stderr.contains(says), "\(arguments): \(result.stderr)")
        #expect(try files(in: dir) == ["keep.pdf"], "no partial output")
        #expect(try Data(contentsOf: dir.appendingPathComponent("keep.pdf")) == old)
    }

    @Test func aFailedRunLeavesTheEarlierSheetIntact() throws {
        let dir = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let old = Data("earlier sheet".utf8)
        try old.write(to: dir.appendingPathComponent("s.pdf"))
        // With --force, so that the run gets as far as drawing and fails there.
        let result = try CLI.run(["generate", "markers", "--ids", "0-3", "--size", "300mm", "-o", "s.pdf", "--force"], in: dir)
        #expect(result.status == 64)
        #expect(try Data(contentsOf: dir.appendingPathComponent("s.pdf")) == old)
        #expect(try files(in: dir) == ["s.pdf"])
    }
}

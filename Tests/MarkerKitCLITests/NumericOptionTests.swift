import Foundation
import Testing

/// Every number checked where it enters. Every subcommand's every value-taking option (and
/// positional argument), as the argument parser itself lists them (`--experimental-dump-help`), is given
/// the values below, and, where the option takes a unit or a shape, the same values with it (`1e308mm`,
/// `9223372036854775807x9223372036854775807`, `nanpx`). Each run must exit 0 or with a documented code,
/// write at most one line on stderr, never trap ("Fatal error", a backtrace, a signal) and end within a
/// minute. A subcommand without a base invocation below fails the test, so a new command is covered as
/// soon as it is added; a new option of a covered command is covered by itself.
@Suite struct NumericOptionTests {
    static let values = ["0", "-1", "9223372036854775807", "1e308", "nan", "inf", "-inf",
                         "1234567890123456789012345678901234567890"]

    /// Exit codes a refused or accepted value may end with. 70 (an internal failure) is a bug, never the
    /// answer to a number a user typed; 130 needs a Ctrl-C, which no run gets but serve's.
    static let allowedCodes: Set<Int32> = [0, 1, 64, 65, 66, 73]

    /// One argument of the option tree.
    struct Argument {
        let kind: String          // "option" or "positional"
        let name: String          // the long name without dashes, or the positional's value name
        let valueName: String
    }

    /// A subcommand's base invocation: options that make it run cheaply, and its positional arguments by
    /// value name (written after `--`, in the parser's order). Paths are in the shared fixture folder.
    struct Base {
        var options: [String]
        var positionals: [String: [String]] = [:]
        /// Runs until stopped (serve): once stdout shows `ready`, it gets SIGINT and must exit 0 or as refused.
        var ready: String?
    }

    static func bases(_ f: String) -> [String: Base] {
        [
            "generate markers": Base(options: ["--ids", "1", "--size", "10mm", "-o", "s.pdf"]),
            "generate marker": Base(options: ["--size", "10mm", "-o", "m.pdf"], positionals: ["id": ["7"]]),
            "generate checkerboard": Base(options: ["--inner", "3x4", "--square", "10mm", "-o", "b.pdf"]),
            "generate charuco": Base(options: ["--squares", "3x3", "--square", "10mm", "--marker", "5mm", "-o", "c.pdf"]),
            "generate diamond": Base(options: ["--ids", "0,1,2,3", "--square", "10mm", "--marker", "6mm", "-o", "d.pdf"]),
            "generate dictionary": Base(options: ["--dictionary", "5x5_50", "--size", "10mm", "-o", "d.pdf"]),
            "detect": Base(options: ["--jobs", "1"], positionals: ["inputs": ["\(f)/small.png"]]),
            "calibrate": Base(options: ["--inner", "9x6", "--square", "25mm", "-o", "c.yaml", "--jobs", "2"],
                              positionals: ["inputs": ["\(f)/chess"]]),
            "calibrations show": Base(options: [], positionals: ["name": ["\(f)/cam.yaml"]]),
            "calibrations export": Base(options: ["--format", "json", "-o", "e.json"], positionals: ["name": ["\(f)/cam.yaml"]]),
            "calibrations import": Base(options: ["--name", "imported"], positionals: ["file": ["\(f)/cam.yaml"]]),
            "calibrations uncertainty": Base(options: ["--grid", "3x2"], positionals: ["name": ["\(f)/cam.yaml"]]),
            "calibrations compare": Base(options: ["--columns", "3"], positionals: ["first": ["\(f)/cam.yaml"], "second": ["\(f)/cam.yaml"]]),
            "undistort": Base(options: ["--calibration", "\(f)/cam.yaml", "-o", "u"], positionals: ["inputs": ["\(f)/img.png"]]),
            "render": Base(options: ["--count", "1", "--size", "160x120", "-o", "r"]),
            "verify markers": Base(options: ["--renders", "1", "--size", "160x120", "--jobs", "1"]),
            "verify calibration": Base(options: ["--views", "3", "--size", "160x120"]),
            "verify board": Base(options: ["--renders", "1", "--size", "160x120"]),
            "verify pose": Base(options: ["--sizes", "30", "--sweep-frames", "10", "--hold-frames", "10", "--size", "160x120", "--jobs", "1"]),
            "capture": Base(options: ["--device", "\(f)/frames", "--out", "v", "--every", "0", "--count", "1"]),
            "track": Base(options: ["--device", "\(f)/frames"]),
            "serve": Base(options: ["--device", "\(f)/frames", "--port", "0", "--out", "v"], ready: "serving http"),
            "bench": Base(options: ["--only", "photos", "--photos", "\(f)/photos"]),
            "help": Base(options: [], positionals: ["subcommands": ["generate"]]),
        ]
    }

    /// The values to give an argument: the plain ones, and with its unit or shape where it takes one
    /// (told by the value name the parser shows in --help).
    static func values(for argument: Argument) -> [String] {
        let name = argument.valueName.lowercased()
        var suffixed: [String] = []
        if name.contains("length") { suffixed = values.map { $0 + "mm" } }
        if name == "page" { suffixed = values.map { "\($0)x\($0)mm" } }
        if ["wxh", "cols x rows", "cxr"].contains(name) { suffixed = values.map { "\($0)x\($0)" } }
        if name == "sizes" { suffixed = values.map { "\($0)x\($0)" } }
        if name.contains("pixels") { suffixed = values.map { $0 + "px" } }
        if name == "ids" { suffixed = values.map { "0-\($0)" } }
        return values + suffixed
    }

    /// The option tree as the parser dumps it: command path -> value-taking arguments.
    static func commands() throws -> [String: [Argument]] {
        let dir = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let dump = try CLI.run(["--experimental-dump-help"], in: dir)
        try #require(dump.status == 0, "--experimental-dump-help: \(dump.stderr)")
        let root = try #require(try JSONSerialization.jsonObject(with: Data(dump.stdout.utf8)) as? [String: Any])
        var found: [String: [Argument]] = [:]
        func walk(_ command: [String: Any], path: [String]) {
            let subcommands = command["subcommands"] as? [[String: Any]] ?? []
            for sub in subcommands { walk(sub, path: path + [sub["commandName"] as? String ?? "?"]) }
            guard subcommands.isEmpty else { return }
            var arguments: [Argument] = []
            for argument in command["arguments"] as? [[String: Any]] ?? [] {
                let kind = argument["kind"] as? String ?? ""
                guard kind == "option" || kind == "positional" else { continue }
                let names = argument["names"] as? [[String: Any]] ?? []
                let long = names.first { $0["kind"] as? String == "long" }?["name"] as? String
                let valueName = argument["valueName"] as? String ?? ""
                arguments.append(Argument(kind: kind, name: kind == "option" ? (long ?? valueName) : valueName, valueName: valueName))
            }
            found[path.joined(separator: " ")] = arguments
        }
        walk(root["command"] as? [String: Any] ?? [:], path: [])
        return found
    }

    struct Run: Sendable {
        let command: String
        let arguments: [String]
        let ready: String?
        var description: String { "markerkit \(arguments.joined(separator: " "))" }
    }

    struct Outcome: Sendable {
        let run: Run
        let status: Int32
        let signalled: Bool
        let timedOut: Bool
        let stderr: String
        let seconds: Double
    }

    @Test func everyValueTakingOptionSurvivesExtremeNumbers() throws {
        let started = Date()
        let fixtures = try Self.fixtures()
        defer { try? FileManager.default.removeItem(at: fixtures) }
        let bases = Self.bases(fixtures.path)
        var runs: [Run] = []
        for (command, arguments) in try Self.commands().sorted(by: { $0.key < $1.key }) where !arguments.isEmpty {
            guard let base = bases[command] else {
                Issue.record("'\(command)' takes values but has no base invocation in NumericOptionTests.bases: add one")
                continue
            }
            let path = command.split(separator: " ").map(String.init)
            let positionalOrder = arguments.filter { $0.kind == "positional" }.map(\.name)
            for argument in arguments {
                for value in Self.values(for: argument) {
                    var options = base.options
                    var positionals = base.positionals
                    if argument.kind == "option" { options.append("--\(argument.name)=\(value)") } else { positionals[argument.name] = [value] }
                    let tail = positionalOrder.flatMap { positionals[$0] ?? [] }
                    runs.append(Run(command: command, arguments: path + options + (tail.isEmpty ? [] : ["--"] + tail), ready: base.ready))
                }
            }
        }
        #expect(Set(runs.map(\.command)).count >= 20, "the option tree lists the subcommands")

        let outcomes = Self.runAll(runs, concurrently: 3)
        var accepted = 0, refused = 0, failures: [String] = []
        for outcome in outcomes {
            if outcome.status == 0 { accepted += 1 } else { refused += 1 }
            let lines = outcome.stderr.split(whereSeparator: \.isNewline).filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
            var wrong: [String] = []
            if outcome.timedOut { wrong.append("still running after 60 s") }
            if outcome.signalled { wrong.append("died of signal \(outcome.status)") }
            if !outcome.signalled, !outcome.timedOut, !Self.allowedCodes.contains(outcome.status) { wrong.append("exit \(outcome.status)") }
            if lines.count > 1 { wrong.append("\(lines.count) lines on stderr") }
            if outcome.stderr.contains("Fatal error") || outcome.stderr.contains("Stack dump") || outcome.stderr.contains("backtrace") {
                wrong.append("trapped")
            }
            if !wrong.isEmpty {
                failures.append("\(outcome.run.description): \(wrong.joined(separator: ", ")): \(lines.prefix(3).joined(separator: " | "))")
            }
        }
        for failure in failures { Issue.record("\(failure)") }
        var seconds: [String: Double] = [:]
        for outcome in outcomes { seconds[outcome.run.command, default: 0] += outcome.seconds }
        print("numeric options, seconds of runs by subcommand: " + seconds.sorted { $0.value > $1.value }
            .map { String(format: "%@ %.0f", $0.key, $0.value) }.joined(separator: ", "))
        let slowest = outcomes.max { $0.seconds < $1.seconds }
        print(String(format: "numeric options: %d runs over %d subcommands, %d accepted, %d refused, %d failed, %.0f s (slowest %.1f s: %@)",
                     outcomes.count, Set(runs.map(\.command)).count, accepted, refused, failures.count,
                     Date().timeIntervalSince(started),
                     slowest?.seconds ?? 0, slowest?.run.description ?? "-"))
    }

    /// The sheet form of `serve` takes the same numbers (its own JSON fields): each extreme is a 422 with
    /// one line, and the server goes on answering. `firstId` 9223372036854775807 and a 1e35 mm marker size
    /// killed it (an overflow trap, a Double too large for Int).
    @Test func theSheetFormRefusesExtremeNumbersAndKeepsServing() throws {
        let dir = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let frames = dir.appendingPathComponent("frames")
        try FileManager.default.createDirectory(at: frames, withIntermediateDirectories: false)
        try FileManager.default.copyItem(at: BadInputCatalogueTests.fixtures.appendingPathComponent("aruco-original-photos/single/image-test.png"),
                                         to: frames.appendingPathComponent("a.png"))
        let server = try RunningServer(["--device", frames.path, "--out", "views"], in: dir)
        let charuco: [String: Any] = ["kind": "charuco", "squares": "5x7", "square": "30mm", "marker": "20mm"]
        let reported: [[String: Any]] = [
            charuco.merging(["firstId": Int.max]) { $1 },
            charuco.merging(["firstId": -1]) { $1 },
            charuco.merging(["firstId": Int.min]) { $1 },
            ["kind": "markers", "ids": "0", "size": "99999999999999999999999999999999999mm"],
        ]
        var bodies = reported
        for value in Self.values {
            bodies.append(["kind": "markers", "ids": "0", "size": value + "mm"])
            bodies.append(["kind": "markers", "ids": "0-\(value)", "size": "40mm"])
            bodies.append(["kind": "markers", "ids": "0", "size": "40mm", "page": "\(value)x\(value)mm"])
            bodies.append(charuco.merging(["squares": "\(value)x\(value)"]) { $1 })
            bodies.append(charuco.merging(["square": value + "mm", "marker": value + "mm"]) { $1 })
            bodies.append(["kind": "checkerboard", "inner": "\(value)x\(value)", "square": "20mm"])
            bodies.append(["kind": "checkerboard", "inner": "9x6", "square": value + "in"])
        }
        for (index, body) in bodies.enumerated() {
            let answer = try server.api("/api/sheet", method: "POST", body: HTTP.json(body))
            // Only "0-0" and the like are sheets to make; the reported ones must be refused.
            #expect(index < reported.count ? answer.status == 422 : [200, 422].contains(answer.status), "\(body): \(answer.status) \(answer.text)")
            if answer.status != 200 { #expect(answer.text.split(separator: "\n").count <= 1, "\(body): \(answer.text)") }
            #expect(server.started.process.isRunning, "\(body) stopped the server")
            guard server.started.process.isRunning else { break }
        }
        #expect(try server.api("/api/status").status == 200)
        let stopped = try server.interrupt()
        #expect(stopped.status == 0, "\(stopped.stderr)")
    }

    /// The inputs base invocations use: an image, a folder of it, chessboard views, a calibration made by
    /// `calibrate` (so it carries the covariance `uncertainty` needs) and an empty real-photo folder.
    static func fixtures() throws -> URL {
        let dir = try makeDirectory()
        let source = BadInputCatalogueTests.fixtures
        let fm = FileManager.default
        // A small image with a marker (what markerkit renders at 160x120), so that runs that go on to work are quick.
        let rendered = try CLI.run(["render", "--count", "1", "--size", "160x120", "-o", "rendered"], in: dir)
        try #require(rendered.status == 0, "the fixture render: \(rendered.stderr)")
        try fm.moveItem(at: dir.appendingPathComponent("rendered/scene_000.png"), to: dir.appendingPathComponent("small.png"))
        try fm.copyItem(at: source.appendingPathComponent("aruco-original-photos/single/image-test.png"), to: dir.appendingPathComponent("img.png"))
        for folder in ["frames", "chess", "photos"] { try fm.createDirectory(at: dir.appendingPathComponent(folder), withIntermediateDirectories: false) }
        try fm.copyItem(at: dir.appendingPathComponent("small.png"), to: dir.appendingPathComponent("frames/a.png"))
        for name in ["left01.jpg", "left02.jpg", "left03.jpg", "left04.jpg", "left05.jpg", "left06.jpg"] {
            try fm.copyItem(at: source.appendingPathComponent("chessboard-opencv-9x6/\(name)"), to: dir.appendingPathComponent("chess/\(name)"))
        }
        try Data("{}\n".utf8).write(to: dir.appendingPathComponent("photos/expected.json"))
        let calibrated = try CLI.run(["calibrate", "chess", "--inner", "9x6", "--square", "25mm", "-o", "cam.yaml"], in: dir)
        try #require(calibrated.status == 0, "the fixture calibration: \(calibrated.stderr)")
        return dir
    }

    /// Runs every run, `concurrently` at a time, each in a folder of its own; a run still going after 60 s
    /// is killed and counted as hanging.
    static func runAll(_ runs: [Run], concurrently: Int) -> [Outcome] {
        let queue = WorkQueue(runs)
        let group = DispatchGroup()
        for _ in 0..<concurrently {
            group.enter()
            Thread.detachNewThread {
                while let (index, run) = queue.take() { queue.put(index, execute(run)) }
                group.leave()
            }
        }
        group.wait()
        return queue.outcomes()
    }

    /// The runs not started yet and the outcomes so far, shared by the threads that run them.
    final class WorkQueue: @unchecked Sendable {
        private let lock = NSLock()
        private let runs: [Run]
        private var next = 0
        private var done: [Outcome?]

        init(_ runs: [Run]) {
            self.runs = runs
            done = Array(repeating: nil, count: runs.count)
        }

        func take() -> (Int, Run)? {
            lock.lock()
            defer { lock.unlock() }
            guard next < runs.count else { return nil }
            next += 1
            return (next - 1, runs[next - 1])
        }

        func put(_ index: Int, _ outcome: Outcome) {
            lock.lock()
            done[index] = outcome
            lock.unlock()
        }

        func outcomes() -> [Outcome] {
            lock.lock()
            defer { lock.unlock() }
            return done.compactMap { $0 }
        }
    }

    static func execute(_ run: Run) -> Outcome {
        let started = Date()
        func failed(_ message: String) -> Outcome {
            Outcome(run: run, status: -1, signalled: false, timedOut: false, stderr: "could not run: \(message)", seconds: 0)
        }
        guard let dir = try? makeDirectory() else { return failed("no folder") }
        defer { try? FileManager.default.removeItem(at: dir) }
        let process = CLI.process(run.arguments, in: dir)
        let outFile = dir.appendingPathComponent(".stdout"), errFile = dir.appendingPathComponent(".stderr")
        _ = FileManager.default.createFile(atPath: outFile.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errFile.path, contents: nil)
        guard let out = try? FileHandle(forWritingTo: outFile), let err = try? FileHandle(forWritingTo: errFile) else { return failed("no output files") }
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        do { try process.run() } catch { return failed("\(error)") }
        var timedOut = false, interrupted = false
        var readyAt: Date?
        while process.isRunning {
            let elapsed = Date().timeIntervalSince(started)
            if elapsed > 60 {
                timedOut = true
                process.terminate()
                Thread.sleep(forTimeInterval: 1)
                if process.isRunning { kill(process.processIdentifier, SIGKILL) }
                break
            }
            // Ctrl-C once it is up, and has been for half a second (the time a user takes to press it).
            if let ready = run.ready, !interrupted {
                if readyAt == nil, let text = try? String(contentsOf: outFile, encoding: .utf8), text.contains(ready) { readyAt = Date() }
                if let readyAt, Date().timeIntervalSince(readyAt) > 0.5 {
                    interrupted = true
                    process.interrupt()
                }
            }
            Thread.sleep(forTimeInterval: 0.02)
        }
        process.waitUntilExit()
        try? out.close()
        try? err.close()
        let stderr = String(decoding: (try? Data(contentsOf: errFile)) ?? Data(), as: UTF8.self)
        return Outcome(run: run, status: process.terminationStatus, signalled: process.terminationReason == .uncaughtSignal,
                       timedOut: timedOut, stderr: stderr, seconds: Date().timeIntervalSince(started))
    }
}

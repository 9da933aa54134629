import Foundation
import Testing
@testable import MarkerKit

/// What `bench` measures, apart from its times (speed is never asserted in a unit test).
@Suite struct BenchmarkTests {
    /// `bench --dictionary 5x5_100`: the rendered frames hold DICT_5X5_100 markers and every contender reads
    /// that dictionary (read as DICT_ARUCO_ORIGINAL they would give no marker), and the report names it.
    /// `bench --threads 1,2 --stages --json`: every marker case gets its stages, the 1-thread ones OpenCV's
    /// first stage timed alone with each of its three windows, and scripts/scaling-prediction models both
    /// libraries stage by stage from the JSON (a row per library and webcam case, beside the measured
    /// 2-thread time).
    @Test func stagesGiveTheThreadModelItsInputs() throws {
        var benchmark = DetectorBenchmark(quick: true)
        benchmark.includeChessboards = false
        benchmark.includePhone = false
        benchmark.includeMJPEG = false
        benchmark.onlySizes = [(640, 480)]
        benchmark.repeatsOverride = 1
        benchmark.threadCounts = [1, 2]
        benchmark.stagesForEveryCase = true
        let report = try benchmark.run(video: nil)
        // 0 and 10 markers and the cluttered frame with 10, at each thread count.
        #expect(report.markerCases.count == 6)
        for c in report.markerCases {
            #expect(c.stages?.contains("contours") == true, "\(c.name)")
            guard c.threads == 1 else { continue }
            let stage = try #require(c.milliseconds["opencv candidate stage"])
            let windows = (1...3).compactMap { c.milliseconds["opencv window \($0)"] }
            #expect(windows.count == 3 && windows.allSatisfy { $0 > 0 } && windows.reduce(0, +) <= stage * 1.05, "\(c.name): \(windows) of \(stage)")
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("bench-model-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let json = folder.appendingPathComponent("bench.json")
        try JSONFile.encode(report, snakeCase: false).write(to: json)
        let process = Process(), output = Pipe()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        let package = Fixtures.root.deletingLastPathComponent().deletingLastPathComponent()
        process.arguments = [package.appendingPathComponent("scripts/scaling-prediction").path, json.path]
        process.standardOutput = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        let staged = text.components(separatedBy: "Stage by stage").last ?? ""
        for markers in ["0 markers", "10 markers"] { // the quick run's cases
            let rows = staged.split(separator: "\n").filter { $0.hasPrefix("640x480, \(markers) ") }
            #expect(rows.count == 2 && rows.last?.hasSuffix("x") == true, "\(markers): \(rows)")
        }
    }

    /// scripts/scaling-prediction on times no run gives (0, negative, not finite, a malformed stages line):
    /// the case is left out with one line, no traceback (a 0 time divided by zero before).
    @Test func theThreadModelLeavesOutTimesNoRunGives() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("bench-model-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let package = Fixtures.root.deletingLastPathComponent().deletingLastPathComponent()
        for bad in ["0", "-1", "1e999", "\"x\""] {
            let milliseconds = "{\"markerkit\": \(bad), \"opencv\": 2, \"opencv candidate stage\": 1, \"opencv window 1\": 0, \"opencv window 2\": 0, \"opencv window 3\": 0}"
            let cases = (1...2).map { n in
                "{\"name\": \"640x480, 1 marker, \(n) thread\", \"threads\": \(n), \"width\": 640, \"height\": 480, \"markers\": 1, \"milliseconds\": \(milliseconds), \"stages\": \"garbage\"}"
            }
            let json = folder.appendingPathComponent("bench.json")
            try Data("{\"markerCases\": [\(cases.joined(separator: ", "))]}".utf8).write(to: json)
            let process = Process(), output = Pipe(), errors = Pipe()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
            process.arguments = [package.appendingPathComponent("scripts/scaling-prediction").path, json.path]
            process.standardOutput = output
            process.standardError = errors
            try process.run()
            let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            let messages = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            #expect(process.terminationStatus == 0 && !messages.contains("Traceback"), "\(bad): \(messages)")
            #expect(text.contains("left out"), "\(bad): \(text)")
        }
    }

    @Test func renderedCasesUseTheChosenDictionary() throws {
        var benchmark = DetectorBenchmark(quick: true)
        benchmark.includeChessboards = false
        benchmark.includePhone = false
        benchmark.onlySizes = [(640, 480)]
        benchmark.repeatsOverride = 1
        benchmark.dictionary = .dict5x5_100
        let report = try benchmark.run(video: nil)
        #expect(report.dictionary == "DICT_5X5_100")
        let tenMarkers = try #require(report.markerCases.first { $0.markers == 10 })
        for contender in ["markerkit", "opencv"] {
            #expect((tenMarkers.recall[contender] ?? 0) >= 0.9, "\(contender): \(tenMarkers.recall)")
        }
        let scene = try BenchmarkScenes.markers(count: 10, width: 640, height: 480, seed: 640 * 31 + 10, dictionary: .dict5x5_100)
        let image = try SceneRenderer().render(scene)
        #expect(try MarkerDetector(dictionary: .arucoOriginal).detect(in: image).isEmpty)
        #expect(report.table.contains("rendered cases: DICT_5X5_100"))
        // The MJPEG rows: both sizes, both contenders decoding and reading the chosen dictionary.
        #expect(report.mjpegCases.map(\.width) == [640, 1920])
        for mjpeg in report.mjpegCases {
            #expect(Set(mjpeg.milliseconds.keys) == ["markerkit", "opencv", "markerkit-decode", "opencv-decode"])
            for contender in ["markerkit", "opencv"] {
                #expect((mjpeg.recall[contender] ?? 0) >= 0.9, "\(mjpeg.name) \(contender): \(mjpeg.recall)")
            }
        }
        #expect(report.table.contains("MJPEG camera frames"))
    }
}

import Foundation
import Testing
@testable import MarkerKit

/// From the command line: `calibrations uncertainty` and `calibrations compare` on calibrations
/// of the OpenCV sample cameras, the covariance kept through export and import, and their bad inputs.
@Suite struct UncertaintyCLITests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures")

    static func calibrated() throws -> URL {
        let dir = try makeDirectory()
        for (name, folder) in [("left", "chessboard-opencv-9x6"), ("right", "chessboard-opencv-9x6-right")] {
            let result = try CLI.run(["calibrate", fixtures.appendingPathComponent(folder).path, "--inner", "9x6", "--square", "25mm", "--name", name], in: dir)
            #expect(result.status == 0, "\(result.stderr)")
        }
        return dir
    }

    @Test func uncertaintyMapsAStoredCalibrationAndSurvivesExport() throws {
        let dir = try Self.calibrated()
        defer { try? FileManager.default.removeItem(at: dir) }
        let show = try CLI.run(["calibrations", "show", "left"], in: dir)
        #expect(show.stdout.contains("projection uncertainty at infinity: median"), "\(show.stdout)")
        let result = try CLI.run(["calibrations", "uncertainty", "left", "--json", "u.json", "--plot", "u.pdf"], in: dir)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("projection uncertainty of left at infinity, 16x9 points: median"), "\(result.stdout)")
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: dir.appendingPathComponent("u.json"))) as? [String: Any]
        let points = try #require(json?["points"] as? [[String: Double]])
        #expect(points.count == 144 && json?["range"] as? String == "infinity" && json?["units"] as? String == "mm")
        #expect(points.allSatisfy { ($0["sigma"] ?? 0) > 0 } && points.first?["x"] == 0 && points.last?["y"] == 479)
        #expect(FileManager.default.fileExists(atPath: dir.appendingPathComponent("u.pdf").path))
        let near = try CLI.run(["calibrations", "uncertainty", "left", "--range", "1m", "--grid", "4x3"], in: dir)
        #expect(near.status == 0 && near.stdout.contains("at 1000 mm, 4x3 points"), "\(near.stdout)")
        // Exported as JSON and imported again, the map is the same; through ROS the covariance is gone.
        for format in ["json", "opencv-xml"] {
            #expect(try CLI.run(["calibrations", "export", "left", "--format", format, "-o", "left.\(format)"], in: dir).status == 0)
            #expect(try CLI.run(["calibrations", "import", "left.\(format)", "--format", format, "--name", "back-\(format)"], in: dir).status == 0)
            let again = try CLI.run(["calibrations", "uncertainty", "back-\(format)"], in: dir)
            #expect(again.stdout.split(separator: "\n").dropFirst() == result.stdout.split(separator: "\n").dropFirst().prefix(9), "\(format)")
        }
        #expect(try CLI.run(["calibrations", "export", "left", "--format", "ros", "-o", "left.ros.yaml"], in: dir).status == 0)
        #expect(try CLI.run(["calibrations", "import", "left.ros.yaml", "--format", "ros", "--name", "ros"], in: dir).status == 0)
        let none = try CLI.run(["calibrations", "uncertainty", "ros", "--json", "none.json"], in: dir)
        #expect(none.status == 65 && none.stderr.contains("carries no projection covariance") && none.stderr.split(separator: "\n").count == 1, "\(none.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("none.json").path))
    }

    /// The report's pages disagreed (page 1 median 0.531 px, page 3 0.495 px: the plot's caption came from
    /// its own fine grid). Every page, the summary and `calibrations uncertainty` now print one computation.
    @Test func theReportAndTheUncertaintyCommandPrintTheSameFigures() throws {
        let dir = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let run = try CLI.run(["calibrate", Self.fixtures.appendingPathComponent("chessboard-opencv-9x6").path, "--inner", "9x6", "--square", "25mm",
                               "--name", "left", "--report", "r.pdf"], in: dir)
        try #require(run.status == 0, "\(run.stderr)")
        let command = try CLI.run(["calibrations", "uncertainty", "left"], in: dir)
        let pattern = "median [0-9.]+ px, worst [0-9.]+ px at \\([0-9]+, [0-9]+\\)"
        let figures = try #require(command.stdout.range(of: pattern, options: .regularExpression).map { String(command.stdout[$0]) })
        let text = try Self.pdfText(dir.appendingPathComponent("r.pdf")).replacingOccurrences(of: "\n", with: " ")
        var found: [String] = []
        var rest = text[...]
        while let range = rest.range(of: pattern, options: .regularExpression) {
            found.append(String(rest[range]))
            rest = rest[range.upperBound...]
        }
        #expect(found.count == 2 && found.allSatisfy { $0 == figures }, "report \(found), command \(figures)")
        #expect(run.stdout.contains(figures), "\(run.stdout)")
    }

    /// A PDF's text, through poppler's pdftotext.
    static func pdfText(_ pdf: URL) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["pdftotext", pdf.path, "-"]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "pdftotext \(pdf.path)")
        return String(decoding: data, as: UTF8.self)
    }

    @Test func crossValidationSaysWhetherTheModelFollowsTheLens() throws {
        let dir = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let boards = Self.fixtures.appendingPathComponent("chessboard-opencv-9x6").path
        let result = try CLI.run(["calibrate", boards, "--inner", "9x6", "--square", "25mm", "--name", "left", "--cross-validate"], in: dir)
        #expect(result.status == 0 && result.stdout.contains("cross-validation: the two halves (7 and 6 views)")
                && result.stdout.contains("the opencv5 model follows this lens"), "\(result.stdout) \(result.stderr)")
    }

    @Test func compareGivesTheProjectionDifferenceAndRefusesOtherImageSizes() throws {
        let dir = try Self.calibrated()
        defer { try? FileManager.default.removeItem(at: dir) }
        let same = try CLI.run(["calibrations", "compare", "left", "left"], in: dir)
        #expect(same.status == 0 && same.stdout.contains("median 0.000 px, worst 0.000 px"), "\(same.stdout)")
        let result = try CLI.run(["calibrations", "compare", "left", "right", "--json", "d.json", "--plot", "d.pdf"], in: dir)
        #expect(result.status == 0, "\(result.stderr)")
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: dir.appendingPathComponent("d.json"))) as? [String: Any]
        let points = try #require(json?["points"] as? [[String: Double]])
        let median = try #require(json?["median"] as? Double)
        #expect(points.count == 60 * 45 && json?["weighted"] as? Bool == true && median > 0.5 && median < 5, "\(median)")
        #expect(FileManager.default.fileExists(atPath: dir.appendingPathComponent("d.pdf").path))
        // Another image size: one line, nothing written.
        let small = "%YAML:1.0\n---\ncamera_matrix: !!opencv-matrix\n   rows: 3\n   cols: 3\n   dt: d\n   data: [ 300., 0., 160., 0., 300., 120., 0., 0., 1. ]\nimage_width: 320\nimage_height: 240\n"
        try Data(small.utf8).write(to: dir.appendingPathComponent("small.yml"))
        let refused = try CLI.run(["calibrations", "compare", "left", "small.yml", "--json", "x.json"], in: dir)
        #expect(refused.status == 65 && refused.stderr.contains("only calibrations of the same image size can be compared")
                && refused.stderr.split(separator: "\n").count == 1, "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("x.json").path))
    }
}

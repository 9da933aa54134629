import Foundation
import Testing

/// Boards you already own. `generate ... --spec-only` writes only the board spec (no page,
/// so nothing to fit), which calibrates a real set; a board too large for its page names the largest square
/// that fits and the page that holds it. Point 3: calibrate prints a verdict and names the board both ways.
@Suite struct SpecOnlyCLITests {
    static let boards = CalibrateCLITests.boards

    static func files(in dir: URL) throws -> [String] {
        (FileManager.default.enumerator(atPath: dir.path)?.allObjects as? [String] ?? []).sorted()
    }

    @Test func aCheckerboardSpecAloneCalibratesOpenCVsPhotosWithNoPDF() throws {
        let dir = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let spec = try CLI.run(["generate", "checkerboard", "--inner", "9x6", "--square", "25mm", "--spec-only", "-o", "board.json"], in: dir)
        #expect(spec.status == 0 && spec.stdout.contains("spec only, no page"), "\(spec.stdout) \(spec.stderr)")
        #expect(try Self.files(in: dir) == ["board.json"])
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: dir.appendingPathComponent("board.json"))) as? [String: Any]
        #expect(json?["page"] == nil && json?["units"] as? String == "mm" && (json?["square_size"] as? [String: Any])?["unit"] as? String == "mm",
                "\(json ?? [:])")
        let again = try CLI.run(["generate", "checkerboard", "--inner", "9x6", "--square", "25mm", "--spec-only", "-o", "board.json"], in: dir)
        #expect(again.status == 73 && again.stderr.contains("exists: add --force"), "\(again.stderr)")
        let notJSON = try CLI.run(["generate", "checkerboard", "--inner", "9x6", "--square", "25mm", "--spec-only", "-o", "board.pdf"], in: dir)
        #expect(notJSON.status != 0 && notJSON.stderr.contains("-o NAME.json"), "\(notJSON.stderr)")

        let calibrate = try CLI.run(["calibrate", Self.boards.path, "--board", "board.json", "-o", "left.yaml"], in: dir)
        #expect(calibrate.status == 0, "\(calibrate.stderr)")
        #expect(calibrate.stdout.contains("calibrated from 13 of 13 images"))
        #expect(calibrate.stdout.contains("board of 10x7 squares (9x6 inner corners)"), "\(calibrate.stdout)")
        #expect(calibrate.stdout.contains("verdict: "), "\(calibrate.stdout)")
        #expect(try Self.files(in: dir) == ["board.json", "left.yaml"], "no PDF, no page")
        let show = try CLI.run(["calibrations", "show", "left.yaml"], in: dir)
        let verdict = { (out: String) in out.split(separator: "\n").filter { $0.contains("verdict:") || $0.contains("to do:") } }
        #expect(show.status == 0 && !verdict(show.stdout).isEmpty && verdict(show.stdout) == verdict(calibrate.stdout),
                "calibrations show gives the verdict calibrate gave: \(show.stdout)")
        print("measured: verdict on OpenCV's 13 left*.jpg: " + verdict(calibrate.stdout).joined(separator: " | "))
    }

    @Test func aChArUcoBoardTooLargeForA4SaysWhatFitsAndItsSpecAloneCalibrates() throws {
        let dir = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let board = ["generate", "charuco", "--squares", "5x7", "--square", "40mm", "--marker", "20mm", "--dictionary", "5x5_1000"]
        let page = try CLI.run(board + ["-o", "charuco.pdf"], in: dir)
        #expect(page.status == 64 && page.stderr.contains("the largest square that fits is") && page.stderr.contains("print it on A3")
                && page.stderr.contains("--spec-only"), "\(page.stderr)")
        let checker = try CLI.run(["generate", "checkerboard", "--inner", "9x6", "--square", "40mm", "-o", "checker.pdf"], in: dir)
        #expect(checker.status == 64 && checker.stderr.contains("the largest square that fits is") && checker.stderr.contains("--spec-only"), "\(checker.stderr)")
        #expect(try Self.files(in: dir).isEmpty)
        let pageAndSpec = try CLI.run(board + ["--spec-only", "--page", "a3", "-o", "board.json"], in: dir)
        #expect(pageAndSpec.status == 64, "\(pageAndSpec.stderr)")

        let spec = try CLI.run(board + ["--spec-only", "-o", "board.json"], in: dir)
        #expect(spec.status == 0 && spec.stdout.contains("5x7 squares of 40 mm (4x6 inner corners)"), "\(spec.stdout) \(spec.stderr)")
        let render = try CLI.run(["render", "--board", "board.json", "--count", "12", "--size", "800x600", "--seed", "3", "-o", "views"], in: dir)
        #expect(render.status == 0, "\(render.stderr)")
        let calibrate = try CLI.run(["calibrate", "views", "--board", "board.json", "-o", "cam.yaml"], in: dir)
        #expect(calibrate.status == 0 && calibrate.stdout.contains("verdict: ") && calibrate.stdout.contains("board of 5x7 squares (4x6 inner corners)"),
                "\(calibrate.stdout) \(calibrate.stderr)")
        #expect(try !Self.files(in: dir).contains { $0.hasSuffix(".pdf") })
    }
}

import Foundation
import Testing

/// A board spec that matches nothing in the pictures says what they show instead (a board of other inner
/// corner counts, markers of another dictionary, markers off the spec's layout), in `detect` and in
/// `calibrate`'s refusal; `detect --timings` times the board stages.
@Suite struct BoardSpecHintCLITests {
    static let gopro = CalibrateCLITests.fixtures.appendingPathComponent("charuco-real/nbhr_pycalib_gopro/00000001.jpg").path
    static let left01 = CalibrateCLITests.boards.appendingPathComponent("left01.jpg").path

    @Test func aCheckerboardSpecOfOtherCountsNamesTheBoardInView() throws {
        let dir = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        #expect(try CLI.run(["generate", "checkerboard", "--inner", "8x6", "--square", "25mm", "--spec-only", "-o", "b.json"], in: dir).status == 0)
        let run = try CLI.run(["detect", Self.left01, "--board", "b.json"], in: dir)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("board corners: 0"))
        #expect(run.stdout.contains("the picture shows a board of 9x6 inner corners (10x7 squares), the spec says 8x6"), "\(run.stdout)")
        let calibrated = try CLI.run(["calibrate", Self.left01, "--board", "b.json", "-o", "c.yml"], in: dir)
        #expect(calibrated.status != 0 && calibrated.stderr.contains("shows a board of 9x6 inner corners"), "\(calibrated.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("c.yml").path))
    }

    @Test func aCharucoSpecOfAnotherDictionaryNamesTheMarkersRead() throws {
        let dir = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        #expect(try CLI.run(["generate", "charuco", "--squares", "18x9", "--square", "20mm", "--marker", "15mm", "--dictionary", "5x5_100",
                             "--spec-only", "-o", "b.json"], in: dir).status == 0)
        let run = try CLI.run(["detect", Self.gopro, "--board", "b.json"], in: dir)
        #expect(run.stdout.contains("0 markers of the spec's DICT_5X5_100, 81 of DICT_4X4_100"), "\(run.stdout)")
        #expect(!run.stdout.contains("try --dictionary"), "the dictionary comes from the spec")
        let calibrated = try CLI.run(["calibrate", Self.gopro, "--board", "b.json", "-o", "c.yml"], in: dir)
        #expect(calibrated.status != 0 && calibrated.stderr.contains("81 of DICT_4X4_100"), "\(calibrated.stderr)")
    }

    @Test func aCharucoSpecOfOtherSquaresSaysItsMarkersAreOffTheLayout() throws {
        let dir = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        #expect(try CLI.run(["generate", "charuco", "--squares", "5x7", "--square", "20mm", "--marker", "15mm", "--dictionary", "4x4_250",
                             "--spec-only", "-o", "b.json"], in: dir).status == 0)
        let run = try CLI.run(["detect", Self.gopro, "--board", "b.json"], in: dir)
        #expect(run.stdout.contains("board corners: 0"), "\(run.stdout)")
        #expect(run.stdout.contains("81 markers of DICT_4X4_250 read (IDs 0-80, 64 outside the spec's), but none lies where the spec's 5x7 board"),
                "\(run.stdout)")
    }

    @Test func aPictureWithNoBoardGetsNoHint() throws {
        let dir = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        #expect(try CLI.run(["generate", "checkerboard", "--inner", "9x6", "--square", "25mm", "--spec-only", "-o", "b.json"], in: dir).status == 0)
        let run = try CLI.run(["detect", CalibrateCLITests.fixtures.appendingPathComponent("aruco-original-photos/single/image-test.png").path, "--board", "b.json"], in: dir)
        #expect(run.status == 0 && run.stdout.contains("board corners: 0"), "\(run.stdout) \(run.stderr)")
        #expect(!run.stdout.contains("the picture shows"))
    }

    @Test func detectTimingsIncludeTheBoardStages() throws {
        let dir = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        #expect(try CLI.run(["generate", "checkerboard", "--inner", "9x6", "--square", "25mm", "--spec-only", "-o", "b.json"], in: dir).status == 0)
        let chessboard = try CLI.run(["detect", Self.left01, "--board", "b.json", "--timings"], in: dir)
        #expect(chessboard.stderr.contains("board search") && chessboard.stderr.contains("corner fit"), "\(chessboard.stderr)")
        #expect(try CLI.run(["generate", "charuco", "--squares", "18x9", "--square", "20mm", "--marker", "15mm", "--dictionary", "4x4_250",
                             "--spec-only", "-o", "c.json"], in: dir).status == 0)
        let charuco = try CLI.run(["detect", Self.gopro, "--board", "c.json", "--timings"], in: dir)
        #expect(charuco.stdout.contains("board corners: 136") && charuco.stderr.contains("board corners"), "\(charuco.stderr)")
    }
}

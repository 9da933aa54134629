import Foundation
import Testing
@testable import MarkerKit

/// `generate charuco`: the sheet and its board spec, which reads back as the same board; bad values
/// refused with one line; a ChArUco spec given to calibrate is refused clearly until it is supported.
@Suite struct CharucoCLITests {
    @Test func generateWritesTheSheetAndASpecThatReadsBackAsTheSameBoard() throws {
        let dir = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let result = try CLI.run(["generate", "charuco", "--squares", "6x8", "--square", "25mm", "--marker", "18mm",
                                  "--dictionary", "5x5_100", "--first-id", "10", "--legacy", "-o", "c.pdf"], in: dir)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(FileManager.default.fileExists(atPath: dir.appendingPathComponent("c.pdf").path))
        let url = dir.appendingPathComponent("c.json")
        let spec = try BoardSpec.decode(Data(contentsOf: url), source: url.path)
        #expect(spec.type == "charuco" && spec.layout == "opencv-legacy" && spec.firstSquare == "white" && spec.units == "mm")
        let expected = try CharucoBoard(squaresX: 6, squaresY: 8, square: .mm(25), marker: .mm(18), dictionary: .dict5x5_100,
                                        firstID: 10, legacy: true)
        #expect(try spec.charucoBoard() == expected)
        let again = try CLI.run(["generate", "charuco", "--squares", "6x8", "--square", "25mm", "--marker", "18mm", "-o", "c.pdf"], in: dir)
        #expect(again.status == 73 && again.stderr.contains("exists: add --force"), "\(again.stderr)")
        let calibrate = try CLI.run(["calibrate", "c.pdf", "--board", "c.json", "--name", "x"], in: dir)
        #expect(calibrate.status == 65 && calibrate.stderr.contains("ChArUco board spec"), "\(calibrate.stderr)")
    }

    @Test(arguments: [
        (["--squares", "1x7", "--square", "20mm", "--marker", "15mm"], "'--squares <cols x rows>'"),
        (["--squares", "5x7", "--square", "20mm", "--marker", "20mm"], "must be smaller than the square"),
        (["--squares", "5x7", "--square", "20mm", "--marker", "15"], "'--marker <length>'"),
        (["--squares", "5x7", "--square", "20mm", "--marker", "15mm", "--dictionary", "5x5_50", "--first-id", "40"], "do not fit in DICT_5X5_50"),
        (["--squares", "5x7", "--square", "40mm", "--marker", "20mm"], "does not fit on A4"),
        (["--squares", "5x7", "--square", "20mm", "--marker", "15mm", "--first-id=-1"], "first marker ID must be 0 or more"),
    ])
    func badValuesAreRefusedWithOneLineAndNoFile(arguments: [String], message: String) throws {
        let dir = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let result = try CLI.run(["generate", "charuco"] + arguments + ["-o", "c.pdf"], in: dir)
        #expect(result.status == 64, "\(arguments): \(result.stderr)")
        #expect(result.stderr.contains(message) && result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).isEmpty)
    }
}

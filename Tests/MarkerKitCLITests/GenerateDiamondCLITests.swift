import Foundation
import MarkerKit
import Testing

/// `generate diamond` prints OpenCV's ChArUco diamond at the size asked for: the page it writes holds the
/// diamond the IDs name, its corners where the sizes put them.
@Suite struct GenerateDiamondCLITests {
    @Test func generateDiamondWritesTheDiamondAsked() throws {
        let dir = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let result = try CLI.run(["generate", "diamond", "--ids", "45,68,28,74", "--square", "30mm", "--marker", "18mm", "--dictionary", "6x6_250",
                                  "--dpi", "200", "-o", "d.png"], in: dir)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("ChArUco diamond 45,68,28,74 (DICT_6X6_250), 30 mm squares, 18 mm markers, 90 mm a side on A4"), "\(result.stdout)")
        let image = try GrayImage(contentsOf: dir.appendingPathComponent("d.png"))
        let dictionary = try MarkerDictionary.parse("6x6_250")
        let diamonds = try DiamondDetector(squareToMarker: 30.0 / 18.0, dictionary: dictionary)
            .diamonds(in: image, markers: try MarkerDetector(dictionary: dictionary).detect(in: image))
        #expect(diamonds.map(\.ids) == [[45, 68, 28, 74]])
        // The inner corners 30 mm apart: 236.2 px at 200 dpi.
        let corners = try #require(diamonds.first?.corners)
        #expect(abs(corners[0].distance(to: corners[1]) - 30 / 25.4 * 200) < 0.2)
        let again = try CLI.run(["generate", "diamond", "--ids", "45,68,28,74", "--square", "30mm", "--marker", "18mm", "-o", "d.png"], in: dir)
        #expect(again.status != 0 && again.stderr.contains("--force"), "\(again.stderr)")
    }
}

import Foundation
import Testing
@testable import MarkerKit

/// `generate markers` writes each page's marker map beside the sheet, and the map is where the markers
/// are printed: detected on the PNG page, every corner lands where the map puts it.
@Suite struct MarkerMapCLITests {
    @Test func theMapOfASheetIsWhereItsMarkersArePrinted() throws {
        let dir = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let generate = try CLI.run(["generate", "markers", "--ids", "0-13", "--size", "30mm", "--dpi", "100", "-o", "s.png"], in: dir)
        #expect(generate.status == 0 && generate.stdout.contains("wrote \(dir.path)/s.json"), "\(generate.stdout) \(generate.stderr)")
        let map = try MarkerMap.read(from: dir.appendingPathComponent("s.json"))
        #expect(map.markers.map(\.id) == Array(0...13) && map.units == "mm" && map.dictionary == "DICT_ARUCO_ORIGINAL" && map.isPlanar)
        let detect = try CLI.run(["detect", "s.png", "--json", "d.json"], in: dir)
        #expect(detect.status == 0, "\(detect.stderr)")
        let found = try JSONDecoder().decode(DetectionReport.self, from: Data(contentsOf: dir.appendingPathComponent("d.json"))).frames[0].markers
        #expect(found.count == 14)
        var worst = 0.0
        for marker in found {
            let corners = try #require(map.corners(of: marker.id))
            for (k, corner) in corners.enumerated() {
                // mm on the page to pixels at 100 dpi, integer coordinates at pixel centres.
                let x = corner.x * 100 / 25.4 - 0.5, y = corner.y * 100 / 25.4 - 0.5
                worst = max(worst, abs(marker.quad[k].x - x), abs(marker.quad[k].y - y))
                #expect(corner.z == 0)
            }
            let side = corners[1] - corners[0]
            #expect(abs((side * side).sum().squareRoot() - 30) < 1e-6)
        }
        print("measured: 14 markers of a 100 dpi page found within \(worst) px of where the map puts them")
        #expect(worst < 0.05)
    }

    /// Pages 2 and on get NAME-k.json, as PNG pages are named; a map is not replaced without --force.
    @Test func everyPageHasItsMapAndNoneIsReplacedUnasked() throws {
        let dir = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let arguments = ["generate", "markers", "--ids", "0-29", "--size", "50mm", "-o", "s.pdf"]
        let first = try CLI.run(arguments, in: dir)
        #expect(first.status == 0, "\(first.stderr)")
        let summary = try #require(first.stdout.split(separator: "\n").last)
        let pages = try #require(Int(summary.split(separator: " ").reversed().drop { $0 != "pages" }.dropFirst().first ?? ""), "\(summary)")
        #expect(pages > 1, "\(summary)")
        let maps = try (1...pages).map { try MarkerMap.read(from: dir.appendingPathComponent($0 == 1 ? "s.json" : "s-\($0).json")) }
        #expect(maps.flatMap { $0.markers.map(\.id) } == Array(0...29))
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("s-\(pages + 1).json").path))
        try FileManager.default.removeItem(at: dir.appendingPathComponent("s.pdf"))
        let again = try CLI.run(arguments, in: dir)
        #expect(again.status == 73 && again.stderr.contains("s.json") && again.stderr.split(separator: "\n").count == 1, "\(again.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("s.pdf").path), "nothing written")
        #expect(try CLI.run(arguments + ["--force"], in: dir).status == 0)
    }
}

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

/// The pose of a marker map from every marker of it seen: the ArUco library's photo of its 24-marker board
/// (strong lens distortion) with the board's layout as a map.
@Suite struct MarkerMapPoseCLITests {
    static let board = CaptureCLITests.single.deletingLastPathComponent().appendingPathComponent("board")

    static func detect(map: URL, in dir: URL) throws -> DetectionReport.FrameResult {
        let run = try CLI.run(["detect", board.appendingPathComponent("image-test.png").path, "--calibration", board.appendingPathComponent("intrinsics.yml").path,
                               "--marker-size", "39mm", "--board", map.path, "--json", "d.json", "--force"], in: dir)
        #expect(run.status == 0 && run.stdout.hasSuffix("1005; the map's pose\n"), "\(run.stdout) \(run.stderr)")
        return try JSONDecoder().decode(DetectionReport.self, from: Data(contentsOf: dir.appendingPathComponent("d.json"))).frames[0]
    }

    /// Each marker's own pose (IPPE on its four corners) lies where the map's pose puts it: centres within
    /// 5% of the distance (2% for the median), every marker turned as the map turns it.
    @Test func theMapsPoseAgreesWithEachMarkersOwn() throws {
        let dir = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let mapURL = Self.board.appendingPathComponent("board-map.json")
        let frame = try Self.detect(map: mapURL, in: dir)
        let target = try #require(frame.target)
        #expect(target.markers.count == 24 && target.outliers.isEmpty && (target.pose.error ?? 9) < 1.5, "\(target)")
        let estimator = MarkerMapPose(map: try MarkerMap.read(from: mapURL))
        let pose = target.pose.pose, r = Pose3D(rvec: pose.rvec, tvec: pose.tvec).rotation
        var distances: [Double] = [], turns: [Double] = []
        for marker in frame.markers {
            let corners = try #require(estimator.map.corners(of: marker.id))
            let c = corners.reduce(SIMD3<Double>.zero, +) / 4
            let predicted = SIMD3(r[0] * c.x + r[1] * c.y + r[2] * c.z, r[3] * c.x + r[4] * c.y + r[5] * c.z, r[6] * c.x + r[7] * c.y + r[8] * c.z) + pose.translation
            let own = try #require(marker.pose)
            let d = own.translation - predicted
            distances.append((d * d).sum().squareRoot() / (predicted * predicted).sum().squareRoot())
            turns.append(own.pose.degrees(from: try #require(estimator.markerRotation(marker.id, mapPose: pose))))
        }
        distances.sort(); turns.sort()
        print(String(format: "measured: ArUco's board photo, the map's pose from 24 markers (%.3f px RMS): marker centres from their own poses %.1f%% of the distance apart (median), %.1f%% at most; turned %.1f degrees (median), %.1f at most",
                     target.pose.error ?? .nan, 100 * distances[12], 100 * distances[23], turns[12], turns[23]))
        #expect(distances[12] < 0.02 && distances[23] < 0.05 && turns[23] < 10)
        // The ambiguous markers took the pose the map gives them.
        #expect(frame.markers.filter { $0.pose?.ambiguous == true }.allSatisfy { $0.pose?.decided == .board })
    }

    /// A marker that moved on the board (its corners in the map shifted 20 mm) does not fit: it is left
    /// out as an outlier, and the pose is the one without it.
    @Test func aMarkerThatDoesNotFitIsAnOutlier() throws {
        let dir = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        var map = try MarkerMap.read(from: Self.board.appendingPathComponent("board-map.json"))
        let moved = map.markers.firstIndex { $0.id == 985 }!
        map.markers[moved] = MarkerMap.Marker(id: 985, corners: map.markers[moved].corners.map { [$0[0] + 0.02, $0[1], $0[2]] })
        try map.encoded().write(to: dir.appendingPathComponent("moved.json"))
        let good = try #require(try Self.detect(map: Self.board.appendingPathComponent("board-map.json"), in: dir).target)
        let bad = try #require(try Self.detect(map: dir.appendingPathComponent("moved.json"), in: dir).target)
        #expect(bad.outliers == [985] && bad.markers.count == 23, "\(bad)")
        let apart = bad.pose.translation - good.pose.translation
        #expect(bad.pose.pose.degrees(from: good.pose.pose) < 0.5 && (apart * apart).sum().squareRoot() < 0.002)
    }

    /// `track --board` gives the map's pose in every frame's line; without a calibration the map is refused.
    @Test func trackGivesTheMapsPoseAndAMapNeedsACalibration() throws {
        let dir = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("frames"), withIntermediateDirectories: false)
        try FileManager.default.copyItem(at: Self.board.appendingPathComponent("image-test.png"), to: dir.appendingPathComponent("frames/a.png"))
        let map = Self.board.appendingPathComponent("board-map.json").path
        let track = try CLI.run(["track", "--device", "frames", "--calibration", Self.board.appendingPathComponent("intrinsics.yml").path,
                                 "--marker-size", "39mm", "--board", map, "--jsonl", "t.jsonl"], in: dir)
        #expect(track.status == 0, "\(track.stderr)")
        let line = try JSONDecoder().decode(DetectionReport.FrameResult.self, from: Data(contentsOf: dir.appendingPathComponent("t.jsonl")))
        #expect(line.target?.markers.count == 24)
        let refused = try CLI.run(["detect", Self.board.appendingPathComponent("image-test.png").path, "--board", map], in: dir)
        #expect(refused.status == 64 && refused.stderr.contains("--board with a marker map finds its pose"), "\(refused.stderr)")
    }
}

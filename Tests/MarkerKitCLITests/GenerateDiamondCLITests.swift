import Foundation
import MarkerKit
import Testing

/// `generate diamond` prints OpenCV's ChArUco diamond at the size asked for: the page it writes holds the
/// diamond the IDs name, its corners where the sizes put them; `detect --diamonds` reports diamonds with
/// their IDs, corners and poses, in JSON, JSON lines and the summary line.
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

    /// The page printed at 150 dpi, seen face-on by a camera of 1000 px focal length centred on the page:
    /// the diamond's pose is 40 mm x 1000 / 236.2 px = 169.3 mm away, its x axis along the image's, its y
    /// axis up (rvec (pi, 0, 0)), its centre where the page puts it.
    @Test func detectReportsDiamondsWithTheirPoses() throws {
        let dir = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let made = try CLI.run(["generate", "diamond", "--ids", "7,7,300,12", "--square", "40mm", "--marker", "24mm", "--dpi", "150", "-o", "d.png"], in: dir)
        #expect(made.status == 0, "\(made.stderr)")
        let calibration = """
            %YAML:1.0
            image_width: 1240
            image_height: 1754
            camera_matrix: !!opencv-matrix
               rows: 3
               cols: 3
               dt: d
               data: [ 1000., 0., 619.5, 0., 1000., 876.5, 0., 0., 1. ]
            distortion_coefficients: !!opencv-matrix
               rows: 5
               cols: 1
               dt: d
               data: [ 0., 0., 0., 0., 0. ]

            """
        try Data(calibration.utf8).write(to: dir.appendingPathComponent("page.yml"))
        let text = try CLI.run(["detect", "d.png", "--diamonds", "40mm,24mm"], in: dir)
        #expect(text.status == 0 && text.stdout.contains("4 markers: 7 7 12 300; 1 diamond: 7,7,300,12"), "\(text.stdout)\(text.stderr)")
        let result = try CLI.run(["detect", "d.png", "--diamonds", "40mm,24mm", "--calibration", "page.yml", "--json", "-"], in: dir)
        #expect(result.status == 0, "\(result.stderr)")
        let report = try JSONDecoder().decode(DetectionReport.self, from: Data(result.stdout.utf8))
        let diamond = try #require(report.frames.first?.diamonds?.first)
        #expect(diamond.ids == [7, 7, 300, 12])
        let pose = try #require(diamond.pose)
        let z = 0.040 * 1000 / (40 / 25.4 * 150)
        #expect(abs(pose.translation.z - z) < 0.001 * z, "\(pose.translation)")
        // The diamond's centre (the mean of its corners) through the camera, at that distance.
        let centre = (x: diamond.corners.map { $0[0] }.reduce(0, +) / 4, y: diamond.corners.map { $0[1] }.reduce(0, +) / 4)
        #expect(abs(centre.x - 619.5) < 0.5, "the page's middle column")
        #expect(abs(pose.translation.x - (centre.x - 619.5) / 1000 * z) < 0.0002 && abs(pose.translation.y - (centre.y - 876.5) / 1000 * z) < 0.0002,
                "\(pose.translation)")
        #expect(abs(abs(pose.rotation.x) - Double.pi) < 0.01 && abs(pose.rotation.y) < 0.01 && abs(pose.rotation.z) < 0.01, "\(pose.rotation)")
        let lines = try CLI.run(["detect", "d.png", "--diamonds", "40mm,24mm", "--jsonl"], in: dir)
        #expect(lines.stdout.hasPrefix("{\"diamonds\":[{\"corners\":[["), "\(lines.stdout.prefix(80))")
        let none = try CLI.run(["detect", "d.png", "--diamonds", "40mm,30mm"], in: dir)
        #expect(none.status == 0 && none.stdout.contains("; 0 diamonds"), "\(none.stdout)")
    }
}

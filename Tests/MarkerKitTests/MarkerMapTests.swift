import Foundation
import Testing
@testable import MarkerKit

/// A marker map's every value is checked where it is read: one line naming the file and what is wrong.
@Suite struct MarkerMapTests {
    static func map(_ markers: String, units: String = "mm", dictionary: String = "DICT_4X4_50") -> Data {
        Data(#"{"format": "markerkit-marker-map", "format_version": 1, "units": "\#(units)", "dictionary": "\#(dictionary)", "generator": "t", "markers": [\#(markers)]}"#.utf8)
    }
    static let square = #"{"id": 3, "corners": [[0, 0, 0], [10, 0, 0], [10, 10, 0], [0, 10, 0]]}"#

    @Test func aGoodMapReads() throws {
        let map = try MarkerMap.decode(Self.map(Self.square), source: "m.json")
        #expect(map.corners(of: 3)?[2] == SIMD3(10, 10, 0) && map.corners(of: 4) == nil && map.isPlanar && map.millimetresPerUnit == 1)
        // A cube's two faces are not one plane.
        let cube = try MarkerMap.decode(Self.map(Self.square + #", {"id": 4, "corners": [[0, 0, 0], [0, 0, 10], [0, 10, 10], [0, 10, 0]]}"#, units: "cm"), source: "c.json")
        #expect(!cube.isPlanar && cube.millimetresPerUnit == 10)
    }

    @Test(arguments: [
        (map(square, units: "furlong"), "unit 'furlong' is not one of mm, cm, m, in, pt"),
        (map(square, dictionary: "DICT_9X9"), "dictionary 'DICT_9X9' is not an OpenCV dictionary"),
        (map(""), "it holds no marker"),
        (map(#"{"id": 50, "corners": [[0, 0, 0], [10, 0, 0], [10, 10, 0], [0, 10, 0]]}"#), "ID 50 is not in DICT_4X4_50 (0-49)"),
        (map(square + ", " + square), "ID 3 is there twice"),
        (map(#"{"id": 1, "corners": [[0, 0, 0], [10, 0, 0], [10, 10, 0]]}"#), "marker 1 needs four corners of three coordinates"),
        (map(#"{"id": 1, "corners": [[0, 0], [10, 0, 0], [10, 10, 0], [0, 10, 0]]}"#), "marker 1 needs four corners of three coordinates"),
        (map(#"{"id": 1, "corners": [[0, 0, 0], [1e308, 0, 0], [10, 10, 0], [0, 10, 0]]}"#), "marker 1 has a coordinate that is not a number within 1000000"),
        (map(#"{"id": 1, "corners": [[0, 0, 0], [10, 0, 0], [20, 0, 0], [30, 0, 0]]}"#), "marker 1's corners do not span a square"),
        (map(#"{"id": 1, "corners": [[5, 5, 5], [5, 5, 5], [5, 5, 5], [5, 5, 5]]}"#), "marker 1's corners do not span a square"),
    ])
    func aBadMapIsRefusedInOneLine(data: Data, why: String) {
        #expect(throws: MarkerKitError.badInput("marker map 'm.json': \(why)")) { try MarkerMap.decode(data, source: "m.json") }
    }

    @Test func otherJSONIsNotAMap() {
        #expect(throws: MarkerKitError.badInput("marker map 'm.json' is not a markerkit-marker-map JSON file")) {
            try MarkerMap.decode(Data("{}".utf8), source: "m.json")
        }
        #expect(throws: MarkerKitError.badInput("marker map 'm.json' is not a markerkit-marker-map JSON file")) {
            try MarkerMap.decode(Data(#"{"format": "markerkit-marker-map", "format_version": 1, "units": "mm", "dictionary": "DICT_4X4_50", "generator": "t", "markers": [{"id": 99999999999999999999999, "corners": []}]}"#.utf8), source: "m.json")
        }
    }

    /// A cube's map is not planar, but one face seen alone is: its pose then has IPPE's two solutions (the
    /// choice between them left to the frames before), not SQPnP's one, which could be the mirror; with two
    /// faces seen, one pose.
    @Test func oneFaceOfACubeHasTwoPoses() throws {
        let map = PoseClip.cube, camera = BuiltInCamera.webcam(width: 1280, height: 720)
        #expect(!map.isPlanar)
        let truth = Pose3D(rvec: Pose3D.compose([Double.pi, 0, 0], then: [0.3, 0.2, 0]), tvec: [10, -5, 600])
        func seen(_ k: Int) throws -> MarkerDetection {
            let m = map.markers[k]
            let corners = try camera.project(m.corners.map { ($0[0], $0[1], $0[2]) }, pose: truth)
            return MarkerDetection(id: m.id, corners: corners)
        }
        let pose = MarkerMapPose(map: map)
        // Face 1 (normal -z) faces the camera; face 3 (normal -x) is turned a little towards it.
        let one = try #require(try pose.pose(of: [try seen(1)], calibration: camera))
        #expect(one.solutions == 2)
        let truthPose = MarkerPose(rvec: truth.rvec, tvec: truth.tvec.map { $0 / 1000 })
        #expect(one.poses.chosen.degrees(from: truthPose) < 0.01)
        let two = try #require(try pose.pose(of: [try seen(1), try seen(3)], calibration: camera))
        #expect(two.solutions == 1 && two.poses.chosen.degrees(from: truthPose) < 0.01)
    }

    /// A map's sigma grows where its markers disagree more than their corner noise allows: the cube's
    /// rotation error was 1.44 times its sigma, in frames where a steeply seen face's corners were off by
    /// more than their edges' scatter said. Two faces, each corner's noise 0.05 px: the sigma from exact
    /// corners, then with one face's corners moved 0.5 px, which only the residuals show.
    @Test func aMapsSigmaGrowsWhereItsMarkersDisagree() throws {
        let map = PoseClip.cube, camera = BuiltInCamera.webcam(width: 1280, height: 720)
        let truth = Pose3D(rvec: Pose3D.compose([Double.pi, 0, 0], then: [0.3, 0.2, 0]), tvec: [10, -5, 600])
        let noise = CornerNoise(start: SIMD4(repeating: 0.0025), end: SIMD4(repeating: 0.0025), covariance: .zero)
        func seen(_ k: Int, moved: Double = 0) throws -> MarkerDetection {
            let m = map.markers[k]
            let corners = try camera.project(m.corners.map { ($0[0], $0[1], $0[2]) }, pose: truth)
            return MarkerDetection(id: m.id, quad: Quad(corners: corners.map { Point2(x: $0.x + moved, y: $0.y) }), noise: noise)
        }
        let pose = MarkerMapPose(map: map)
        func sigma(_ markers: [MarkerDetection]) throws -> PoseSigma {
            let found = try #require(try pose.pose(of: markers, calibration: camera))
            return try #require(pose.sigma(of: markers, used: markers.map(\.id), pose: found.poses.chosen, calibration: camera))
        }
        let agreeing = try sigma([try seen(1), try seen(3)]), disagreeing = try sigma([try seen(1), try seen(3, moved: 0.5)])
        print("measured: cube map sigma \(agreeing.rotation) degrees from exact corners, \(disagreeing.rotation) with one face 0.5 px off")
        #expect(agreeing.rotation > 0 && disagreeing.rotation > 2 * agreeing.rotation && disagreeing.translation > 2 * agreeing.translation)
    }
}

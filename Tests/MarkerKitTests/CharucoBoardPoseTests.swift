import Foundation
import Testing
@testable import MarkerKit

/// A ChArUco board's pose from its corners (`detect --board` and `track --board` with a calibration):
/// rendered at known poses, found as the frame's target.
@Suite struct CharucoBoardPoseTests {
    static let board = try! CharucoBoard(squaresX: 7, squaresY: 9, square: .mm(30), marker: .mm(22))
    static let camera = BuiltInCamera.webcam(width: 1280, height: 720)

    /// The analyzer `detect --board board.json --calibration ...` runs.
    static func analyzer() -> MarkerFrameAnalyzer {
        var analyzer = MarkerFrameAnalyzer(poseEstimator: MarkerPoseEstimator(calibration: camera, side: 0.022))
        analyzer.detector = MarkerDetector(dictionary: board.dictionary)
        analyzer.board = CharucoDetector(board: board)
        return analyzer
    }

    @Test(arguments: [(0.0, 500.0), (35.0, 700.0), (55.0, 900.0)])
    func theBoardsPoseComesFromItsCorners(tilt: Double, distance: Double) throws {
        let pose = Pose3D.held(centre: (105, 135), at: (20, -10, distance), tilt: tilt * Double.pi / 180, axis: 0.7, spin: 0.3)
        var degradations = Degradations()
        degradations.noise = 1
        let scene = Scene(camera: Self.camera, width: 1280, height: 720, targets: [Target(pattern: .charuco(Self.board), pose: pose)],
                          degradations: degradations)
        let image = try SceneRenderer().render(scene)
        var analyzer = Self.analyzer()
        let frame = Frame(width: image.width, height: image.height, stride: image.width, format: .gray8, bytes: image.pixels)
        let (result, _) = try analyzer.analyze(SourcedFrame(source: "render", index: 0, frame: frame), annotate: false)
        let target = try #require(result.target, "a pose for the board")
        let truth = MarkerPose(rvec: pose.rvec, tvec: pose.tvec.map { $0 / 1000 })
        let rotation = target.pose.pose.degrees(from: truth)
        let d = target.pose.translation - truth.translation
        let translation = 100 * (d * d).sum().squareRoot() / (truth.translation * truth.translation).sum().squareRoot()
        print("measured: ChArUco board tilted \(tilt) degrees at \(distance) mm: \(target.corners ?? 0) corners, \(target.markers.count) markers, rotation error \(rotation) degrees, translation \(translation)% of the distance, reprojection \(target.pose.error ?? -1) px")
        #expect((target.corners ?? 0) >= 40 && target.markers.count >= 20 && target.outliers.isEmpty)
        #expect(rotation < 0.2 && translation < 0.3)
        #expect(target.pose.unit == "m")
        // The JSON carries the corners' count.
        let json = try JSONSerialization.jsonObject(with: try DetectionReport(frames: [result]).encoded()) as? [String: Any]
        let written = ((json?["frames"] as? [[String: Any]])?.first?["target"] as? [String: Any])?["corners"] as? Int
        #expect(written == target.corners)
    }

    /// Too few corners, all on one row, or on a diagonal: no pose (OpenCV's rule, and its solver's), and no crash.
    @Test func fewCornersOrOneRowGiveNoPose() throws {
        let estimator = CharucoBoardPose(board: Self.board)
        let row = (0..<6).map { CharucoDetection.Corner(id: $0, point: Point2(x: 100 + 30 * Double($0), y: 100)) }
        #expect(try estimator.pose(of: row, markers: [], calibration: Self.camera) == nil)
        #expect(try estimator.pose(of: Array(row.prefix(3)), markers: [], calibration: Self.camera) == nil)
        let outside = [CharucoDetection.Corner(id: 999, point: Point2(x: 1, y: 1))] + row
        #expect(try estimator.pose(of: outside, markers: [], calibration: Self.camera) == nil)
        // A diagonal: rows and columns differ, the corners still on one line (make demo's board clip threw
        // "solvePnP found no pose", exit 70, on such a frame).
        let diagonal = (0..<5).map { CharucoDetection.Corner(id: 7 * $0, point: Point2(x: 100 + 30 * Double($0), y: 100 + 30 * Double($0))) }
        #expect(try estimator.pose(of: diagonal, markers: [], calibration: Self.camera) == nil)
    }

    /// The annotated frame shows the board's axes: a white dot at its origin, x in red, y in green.
    @Test func theAnnotationDrawsTheBoardsAxes() throws {
        let pose = Pose3D.held(centre: (105, 135), at: (20, -10, 500), tilt: 0.2, axis: 0.7, spin: 0.1)
        let scene = Scene(camera: Self.camera, width: 1280, height: 720, targets: [Target(pattern: .charuco(Self.board), pose: pose)])
        let image = try SceneRenderer().render(scene)
        var analyzer = Self.analyzer()
        let frame = Frame(width: image.width, height: image.height, stride: image.width, format: .gray8, bytes: image.pixels)
        let (result, annotated) = try analyzer.analyze(SourcedFrame(source: "render", index: 0, frame: frame), annotate: true)
        let target = try #require(result.target), picture = try #require(annotated)
        let length = 0.09 // three 30 mm squares
        let axes = try Self.camera.project([(0, 0, 0), (0.6 * length, 0, 0), (0, 0.6 * length, 0)],
                                           pose: Pose3D(rvec: target.pose.rvec, tvec: target.pose.tvec))
        func bgr(_ p: Point2) -> [UInt8] {
            let i = 3 * (Int(p.y.rounded()) * picture.width + Int(p.x.rounded()))
            return Array(picture.bytes[i..<(i + 3)])
        }
        #expect(bgr(axes[0]) == [255, 255, 255] && bgr(axes[1]) == [0, 0, 255] && bgr(axes[2]) == [0, 255, 0],
                "\(bgr(axes[0])) \(bgr(axes[1])) \(bgr(axes[2]))")
    }
}

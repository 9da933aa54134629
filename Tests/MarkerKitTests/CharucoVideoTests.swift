import Foundation
import Testing
@testable import MarkerKit

/// A real webcam video of a hand-held ChArUco board (caliscope's, Tests/Fixtures/charuco-video-caliscope):
/// MarkerKit's markers and board corners in every frame against OpenCV 4.6's on the same frames, and the
/// board's pose through the stream as `detect --board` gives it: in every frame, with small reprojection
/// errors and no turn between frames that the hand did not make.
@Suite struct CharucoVideoTests {
    static let folder = "charuco-video-caliscope"

    @Test func aRealBoardVideoGivesAtLeastOpenCVsCornersAndABoardPoseInEveryFrame() throws {
        let board = try BoardSpec.read(from: Fixtures.url("\(Self.folder)/board.json")).charucoBoard()
        let camera = try CameraCalibration.read(from: Fixtures.url("\(Self.folder)/intrinsics.yml"))
        let source = try VideoFileSource(url: Fixtures.url("\(Self.folder)/board-inverted.mp4"))
        let openCVMarkers = OpenCVArucoDetector(dictionary: board.dictionary), openCVCorners = try OpenCVCharucoDetector(board: board, camera: camera)
        var analyzer = MarkerFrameAnalyzer(poseEstimator: MarkerPoseEstimator(calibration: camera, side: board.marker.millimetres / 1000))
        analyzer.detector = MarkerDetector(dictionary: board.dictionary)
        analyzer.board = CharucoDetector(board: board)
        analyzer.poseHistory = PoseHistory(ids: board.dictionary.count)
        var sourced = SourcedFrame.empty
        var frames = 0, markers = (ours: 0, theirs: 0), corners = (ours: 0, theirs: 0), poses = 0
        var errors: [Double] = [], largestTurn = 0.0, last: MarkerPose?
        while try source.next(into: &sourced) {
            let gray = try Grayscale.image(from: sourced.frame)
            let (result, _) = try analyzer.analyze(sourced, annotate: false)
            let theirMarkers = try openCVMarkers.detect(in: gray)
            markers.ours += result.markers.count
            markers.theirs += theirMarkers.count
            #expect(Set(theirMarkers.map(\.id)).isSubset(of: Set(result.markers.map(\.id))), "frame \(sourced.index): a marker OpenCV reads is missed")
            corners.ours += result.board?.corners.count ?? 0
            corners.theirs += try openCVCorners.detect(in: gray).count
            if let target = result.target {
                poses += 1
                errors.append(try #require(target.pose.error))
                #expect(target.pose.sigma != nil)
                if let last { largestTurn = max(largestTurn, target.pose.pose.degrees(from: last)) }
                last = target.pose.pose
            } else {
                last = nil
            }
            frames += 1
        }
        errors.sort()
        print("measured: caliscope's ChArUco video, \(frames) frames: markers \(markers.ours) vs OpenCV's \(markers.theirs), corners \(corners.ours) vs \(corners.theirs), board pose in \(poses) frames, RMS reprojection median \(errors[errors.count / 2]) px, at most \(errors.last!) px, largest turn between frames \(largestTurn) degrees")
        #expect(frames == 57 && poses == 57)
        #expect(markers.ours >= markers.theirs && corners.ours >= corners.theirs)
        #expect(errors[errors.count / 2] < 0.2 && errors.last! < 0.5)
        // The hand turns the board at most about 7 degrees between frames (6 fps); a flip would be 20 or more.
        #expect(largestTurn < 15)
    }
}

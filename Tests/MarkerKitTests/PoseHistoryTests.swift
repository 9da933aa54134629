import Foundation
import Testing
@testable import MarkerKit

/// A marker's two poses and the choice between them in a stream: a small marker rocking through
/// facing the camera (where IPPE's two poses reproject almost alike), with corner noise, frame by frame.
@Suite struct PoseHistoryTests {
    static let calibration = try! CameraCalibration(name: "sim", cameraMatrix: [800, 0, 320, 0, 800, 240, 0, 0, 1],
                                                    distortion: [0, 0, 0, 0, 0], imageWidth: 640, imageHeight: 480)
    static let side = 0.05

    /// Frame `n`'s true pose: 35 px across, tilted 12 degrees one way and the other about a fixed axis.
    static func truth(_ n: Int) -> MarkerPose {
        let tilt = 12 * Double.pi / 180 * sin(2 * Double.pi * Double(n) / 120), axis = 0.6
        let r = Pose3D.compose([Double.pi, 0, 0], then: [cos(axis) * tilt, sin(axis) * tilt, 0])
        return MarkerPose(rvec: r, tvec: [0.02, -0.01, 800 * side / 35])
    }

    /// The marker's corners at frame `n`'s pose with Gaussian noise of `sigma` px.
    static func corners(_ n: Int, sigma: Double, random: inout SeededRandom) throws -> MarkerDetection {
        let h = side / 2, pose = truth(n)
        let projected = try calibration.project([(-h, h, 0), (h, h, 0), (h, -h, 0), (-h, -h, 0)], pose: Pose3D(rvec: pose.rvec, tvec: pose.tvec))
        return MarkerDetection(id: 7, corners: projected.map { Point2(x: $0.x + sigma * random.gaussian(), y: $0.y + sigma * random.gaussian()) })
    }

    /// Wrong-pose frames (the chosen pose further from the truth than the other by more than 5 degrees)
    /// and flips (a wrong frame after a right one) over 600 frames, by reprojection alone and with the history.
    @Test func historyKeepsAnAmbiguousMarkerFromFlipping() throws {
        let estimator = MarkerPoseEstimator(calibration: Self.calibration, side: Self.side)
        var history = PoseHistory(ids: 1024)
        var random = SeededRandom(seed: 5)
        var wrong = (alone: 0, history: 0), flips = (alone: 0, history: 0), ambiguous = 0, decidedByHistory = 0
        var previous = (alone: false, history: false)
        for n in 0..<600 {
            let poses = try estimator.poses(of: try Self.corners(n, sigma: 0.3, random: &random))
            #expect(poses.chosenError <= poses.otherError)
            let (kept, decided) = history.decide(poses, id: 7, frame: n)
            if poses.isAmbiguous { ambiguous += 1 }
            if decided == .history { decidedByHistory += 1 }
            let truth = Self.truth(n)
            let isWrong = (alone: poses.chosen.degrees(from: truth) > poses.other.degrees(from: truth) + 5,
                           history: kept.chosen.degrees(from: truth) > kept.other.degrees(from: truth) + 5)
            if isWrong.alone { wrong.alone += 1 }
            if isWrong.history { wrong.history += 1 }
            if isWrong.alone && !previous.alone { flips.alone += 1 }
            if isWrong.history && !previous.history { flips.history += 1 }
            previous = isWrong
        }
        print("measured: 600 frames of a 35 px marker rocking +-12 degrees, noise 0.3 px: \(ambiguous) ambiguous, \(decidedByHistory) decided by history; wrong pose (5 degrees worse than the other) in \(wrong.alone) frames by reprojection alone, \(wrong.history) with history; flips \(flips.alone) and \(flips.history)")
        #expect(ambiguous > 100, "the case is the ambiguous one")
        #expect(flips.alone >= 40, "reprojection alone flips")
        #expect(flips.history * 2 <= flips.alone && wrong.history * 3 <= wrong.alone * 2)
    }

    /// Two poses of one marker, distinct, from an ambiguous frame of the simulated stream.
    static func twoPoses() throws -> (MarkerPose, MarkerPose) {
        let estimator = MarkerPoseEstimator(calibration: calibration, side: side)
        var random = SeededRandom(seed: 9)
        for n in 0..<200 {
            let poses = try estimator.poses(of: try corners(n, sigma: 0.3, random: &random))
            if poses.isAmbiguous, poses.chosen.degrees(from: poses.other) > 10 { return (poses.chosen, poses.other) }
        }
        throw MarkerKitError.badInput("no ambiguous frame")
    }

    /// Ten frames in which pose X reprojects a little better, then one in which Y does: the history keeps
    /// X (the evidence of the ten outweighs the one); another ID, a frame out of order, one after `memory`
    /// frames, an ID outside the dictionary and a marker whose frame alone is clear are decided by the
    /// reprojection; one whose errors' ratio is 4 or more but whose frame alone is weak evidence by history.
    @Test func evidenceAddsUpAlongTheFramesAndIsForgotten() throws {
        let (x, y) = try Self.twoPoses()
        let xBetter = MarkerPoses(chosen: x, other: y, chosenError: 0.30, otherError: 0.40)
        let yBetter = MarkerPoses(chosen: y, other: x, chosenError: 0.30, otherError: 0.36)
        var history = PoseHistory(ids: 10, memory: 5)
        for frame in 0..<10 {
            let (kept, decided) = history.decide(xBetter, id: 3, frame: frame)
            #expect(kept == xBetter && decided == (frame == 0 ? .reprojection : .history))
        }
        #expect(history.decide(yBetter, id: 3, frame: 10) == (yBetter.swapped, .history), "X kept, though Y reprojects better")
        #expect(history.decide(yBetter, id: 4, frame: 10) == (yBetter, .reprojection), "another marker")
        #expect(history.decide(yBetter, id: 3, frame: 10) == (yBetter, .reprojection), "the same frame again is not history")
        #expect(history.decide(yBetter, id: 3, frame: 30) == (yBetter, .reprojection), "forgotten after 5 frames")
        #expect(history.decide(yBetter, id: 99, frame: 31) == (yBetter, .reprojection), "an ID outside the dictionary")
        // A pose that reprojects clearly better (ratio 4 or more, and 100 to 1 or more for the frame alone
        // with the corner noise the stream has shown, 0.3 px) is never overruled.
        var clear = PoseHistory(ids: 10)
        for frame in 0..<10 { _ = clear.decide(xBetter, id: 5, frame: frame) }
        let yClearly = MarkerPoses(chosen: y, other: x, chosenError: 0.1, otherError: 1.0)
        #expect(clear.decide(yClearly, id: 5, frame: 10) == (yClearly, .reprojection))
        // Errors fivefold apart but both below that noise: the frame alone says 14 to 1, and the ten frames
        // before outweigh it (this frame alone decided, and flipped a 20 px marker's pose in verify pose).
        var weak = PoseHistory(ids: 10)
        for frame in 0..<10 { _ = weak.decide(xBetter, id: 5, frame: frame) }
        let yWeakly = MarkerPoses(chosen: y, other: x, chosenError: 0.1, otherError: 0.5)
        #expect(!yWeakly.isAmbiguous)
        #expect(weak.decide(yWeakly, id: 5, frame: 10) == (yWeakly.swapped, .history))
    }

    /// Corners that moved `n` px from the origin (a marker moving across the image frame by frame).
    static func quad(_ n: Double) -> Quad {
        Quad(Point2(x: 100 + n, y: 100), Point2(x: 130 + n, y: 100), Point2(x: 130 + n, y: 130), Point2(x: 100 + n, y: 130))
    }

    /// A marker seen moving while pose X reprojects better, then held still for 40 frames in which Y
    /// reprojects a little better every frame (the still corners share their error): the still frames are
    /// one view, so X is kept. Were each still frame counted as new evidence, Y would win within a few.
    @Test func aMarkerHeldStillIsOneView() throws {
        let (x, y) = try Self.twoPoses()
        let xBetter = MarkerPoses(chosen: x, other: y, chosenError: 0.30, otherError: 0.40)
        let yBetter = MarkerPoses(chosen: y, other: x, chosenError: 0.30, otherError: 0.36)
        var history = PoseHistory(ids: 10)
        for frame in 0..<10 { _ = history.decide(xBetter, id: 3, frame: frame, corners: Self.quad(Double(frame))) }
        for frame in 10..<50 {
            // Still: the corners within a tenth of a pixel of where they stopped.
            let (kept, decided) = history.decide(yBetter, id: 3, frame: frame, corners: Self.quad(10 + 0.1 * Double(frame % 2)))
            #expect(kept == yBetter.swapped && decided == .history, "frame \(frame): X kept")
        }
        // Moving again with Y better every frame: new views, and Y wins.
        var chosenY = false
        for frame in 50..<80 { chosenY = history.decide(yBetter, id: 3, frame: frame, corners: Self.quad(Double(frame))).0 == yBetter }
        #expect(chosenY)
    }

    /// Two poses far apart (over `crossingDegrees`) cannot change places: what 10 frames showed still
    /// decides after 60 frames that told nothing, against 3 frames that say otherwise.
    @Test func tracksFarApartKeepWhatTheFramesShowed() throws {
        let (x, y) = try Self.twoPoses()
        #expect(x.degrees(from: y) > PoseHistory.crossingDegrees)
        let xBetter = MarkerPoses(chosen: x, other: y, chosenError: 0.30, otherError: 0.40)
        let even = MarkerPoses(chosen: y, other: x, chosenError: 0.30, otherError: 0.30)
        let yBetter = MarkerPoses(chosen: y, other: x, chosenError: 0.30, otherError: 0.36)
        var history = PoseHistory(ids: 10)
        for frame in 0..<10 { _ = history.decide(xBetter, id: 3, frame: frame) }
        for frame in 10..<70 { _ = history.decide(even, id: 3, frame: frame) }
        for frame in 70..<73 {
            #expect(history.decide(yBetter, id: 3, frame: frame) == (yBetter.swapped, .history), "frame \(frame): X kept")
        }
    }
}

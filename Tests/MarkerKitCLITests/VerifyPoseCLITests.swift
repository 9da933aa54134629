import Foundation
import Testing
@testable import MarkerKit

/// `verify pose` on a short clip: one segment of a 30 px marker (a sweep to 70 degrees and back, held
/// still at 15 and 6 degrees), MarkerKit's stream of poses beside OpenCV's per-frame solvePnP.
@Suite struct VerifyPoseCLITests {
    @Test func aShortClipIsMeasuredAgainstItsTruthBesideOpenCV() throws {
        let dir = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let run = try CLI.run(["verify", "pose", "--sizes", "30", "--sweep-frames", "40", "--hold-frames", "15", "--json", "pose.json"], in: dir)
        #expect(run.status == 0, "\(run.stderr)")
        for expected in ["markerkit", "mk-frame", "mk-smooth", "opencv", "flips/1000", "jitter", "by tilt", "still", "30 px"] {
            #expect(run.stdout.contains(expected), "\(expected)")
        }
        let report = try JSONDecoder().decode(PoseVerificationReport.self, from: Data(contentsOf: dir.appendingPathComponent("pose.json")))
        // 40 + 2 x (15 + 20) - 20 frames: 40 of the sweep, 20 of the move between the holds, 30 still.
        #expect(report.summary.frames == 90 && report.trials.count == 90)
        #expect(report.summary.byMotion.map { $0.figures[0].frames } == [60, 30], "two holds of 15 still frames")
        let figures = Dictionary(uniqueKeysWithValues: report.summary.overall.map { ($0.contender, $0) })
        let markerkit = try #require(figures["markerkit"]), opencv = try #require(figures["opencv"])
        print("measured: 90 frames of a 30 px marker: flips markerkit \(markerkit.flips), per frame \(figures["mk-frame"]!.flips), opencv \(opencv.flips); rotation P50 \(markerkit.rotationP50 ?? -1) vs \(opencv.rotationP50 ?? -1) degrees; recall \(markerkit.recall) vs \(opencv.recall)")
        #expect(markerkit.recall >= 0.9 && markerkit.flips <= opencv.flips)
        // track --smooth: steadier in the still frames than the stream's own poses.
        let smooth = try #require(figures["mk-smooth"])
        print("measured: jitter in still frames \(markerkit.jitter ?? -1) degrees, smoothed \(smooth.jitter ?? -1)")
        #expect(try #require(smooth.jitter) < (try #require(markerkit.jitter)))
        #expect(try #require(markerkit.rotationP50) < (opencv.rotationP50 ?? .infinity))
        // Every flip is a change of side between frames with a side.
        var last: Int?
        for trial in report.trials {
            let o = trial.outcomes["markerkit"]!
            if o.side != 0 {
                #expect(o.flip == (last.map { $0 != o.side } ?? false), "frame \(trial.index)")
                last = o.side
            } else {
                #expect(!o.flip)
            }
        }
    }

    /// A 20 px marker's border is under 3 px wide: the corner refiner's profiles reached the code cells
    /// behind it, and a white cell there pulled its edge inward. At seed 8 that shift leaned the corners
    /// towards the mirror pose, and the stream held the mirror in 692 of 1000 frames (rotation P50 19.6
    /// degrees against OpenCV's 21.0). With the profiles stopped inside the border: 150, and 3.3 degrees.
    @Test func aSmallMarkersThinBorderDoesNotLeanItsPoseToTheMirror() throws {
        let dir = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let run = try CLI.run(["verify", "pose", "--seed", "8", "--sizes", "20", "--sweep-frames", "60", "--hold-frames", "20", "--json", "small.json"], in: dir)
        #expect(run.status == 0, "\(run.stderr)")
        let report = try JSONDecoder().decode(PoseVerificationReport.self, from: Data(contentsOf: dir.appendingPathComponent("small.json")))
        let figures = Dictionary(uniqueKeysWithValues: report.summary.overall.map { ($0.contender, $0) })
        let markerkit = try #require(figures["markerkit"]), opencv = try #require(figures["opencv"])
        print("measured: a 20 px marker, seed 8: on the mirror in \(markerkit.mirrorPer1000) of 1000 frames (OpenCV \(opencv.mirrorPer1000)); rotation P50 \(markerkit.rotationP50 ?? -1) vs \(opencv.rotationP50 ?? -1) degrees")
        #expect(markerkit.mirrorPer1000 < 400)
        #expect(try #require(markerkit.rotationP50) < 0.5 * (try #require(opencv.rotationP50)))
        #expect(markerkit.recall >= opencv.recall && markerkit.flips <= opencv.flips)
    }

    /// The sigma MarkerKit predicts for a marker's pose against its true error (a 160 px marker, 140
    /// frames): the RMS of error / sigma near 1 for rotation and translation (0.92 and 1.00 when measured;
    /// before the pose had a sigma there was no column to read).
    @Test func thePredictedSigmaMatchesTheTrueError() throws {
        let dir = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let run = try CLI.run(["verify", "pose", "--sizes", "160", "--sweep-frames", "80", "--hold-frames", "20", "--json", "sigma.json"], in: dir)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("err/σ rot trans"))
        let report = try JSONDecoder().decode(PoseVerificationReport.self, from: Data(contentsOf: dir.appendingPathComponent("sigma.json")))
        let markerkit = try #require(report.summary.overall.first { $0.contender == "markerkit" })
        let rotation = try #require(markerkit.rotationErrorPerSigma), translation = try #require(markerkit.translationErrorPerSigma)
        print("measured: 140 frames of a 160 px marker: RMS of error / sigma \(rotation) (rotation), \(translation) (translation)")
        #expect(rotation > 0.75 && rotation < 1.3 && translation > 0.75 && translation < 1.3)
        #expect(report.summary.overall.first { $0.contender == "opencv" }?.rotationErrorPerSigma == nil)
    }

    /// A board's, a sheet's or a cube's clip: its pose from its corners (as detect --board gives it) beside
    /// OpenCV's (interpolateCornersCharuco and solvePnP; solvePnP on the markers' corners), 0 flips and a
    /// rotation error at most half OpenCV's.
    @Test(arguments: [("charuco", "of a ChArUco board (5x7 squares of 30 mm"), ("sheet", "of a sheet of 6 markers"),
                      ("cube", "of a 60 mm cube with a marker on each face")])
    func aBoardsClipIsMeasuredBesideOpenCVsPose(target: String, heading: String) throws {
        let dir = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let run = try CLI.run(["verify", "pose", "--target", target, "--sizes", "300", "--sweep-frames", "20", "--hold-frames", "10",
                               "--json", "board.json"], in: dir)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains(heading))
        let report = try JSONDecoder().decode(PoseVerificationReport.self, from: Data(contentsOf: dir.appendingPathComponent("board.json")))
        let figures = Dictionary(uniqueKeysWithValues: report.summary.overall.map { ($0.contender, $0) })
        let markerkit = try #require(figures["markerkit"]), opencv = try #require(figures["opencv"])
        print("measured: \(report.summary.frames) frames \(heading) 300 px long: rotation P50 \(markerkit.rotationP50 ?? -1) vs OpenCV's \(opencv.rotationP50 ?? -1) degrees, flips \(markerkit.flips) vs \(opencv.flips), recall \(markerkit.recall) vs \(opencv.recall)")
        #expect(markerkit.flips == 0 && markerkit.recall >= opencv.recall)
        #expect(try #require(markerkit.rotationP50) <= 0.5 * (try #require(opencv.rotationP50)))
    }

    /// make demo's board clip: a frame whose board corners no solver fits made `verify pose --target charuco`
    /// end with "solvePnP found no pose" (exit 70); such a frame has no board pose, and the run goes on.
    @Test func aFrameWithoutABoardPoseDoesNotEndTheRun() throws {
        let dir = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let run = try CLI.run(["verify", "pose", "--target", "charuco", "--sizes", "250", "--sweep-frames", "60", "--hold-frames", "15"], in: dir)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("110 frames"))
    }
}

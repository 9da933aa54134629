import Foundation
import Testing
@testable import MarkerKit

/// Both of a marker's poses in `detect`'s JSON, and the choice between them by history in a video (the
/// ArUco library's clip of a sheet of six markers, with its calibration).
@Suite struct PoseChoiceCLITests {
    static let single = CaptureCLITests.single

    static func poses(_ json: Data) throws -> [[(id: Int, pose: DetectionReport.Pose)]] {
        try JSONDecoder().decode(DetectionReport.self, from: json).frames.map { frame in
            frame.markers.compactMap { marker in marker.pose.map { (marker.id, $0) } }
        }
    }

    @Test func eachPoseCarriesTheOtherAndBothErrors() throws {
        let dir = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let run = try CLI.run(["detect", Self.single.appendingPathComponent("image-test.png").path, "--calibration",
                               Self.single.appendingPathComponent("intrinsics.yml").path, "--marker-size", "5cm", "--json", "d.json"], in: dir)
        #expect(run.status == 0, "\(run.stderr)")
        let poses = try Self.poses(try Data(contentsOf: dir.appendingPathComponent("d.json")))[0]
        #expect(poses.count == 6)
        for (id, pose) in poses {
            let alternative = try #require(pose.alternative), error = try #require(pose.error), ratio = try #require(pose.ratio)
            #expect(error < 1 && alternative.error > error, "marker \(id): \(error) px against \(alternative.error) px")
            #expect(abs(ratio - alternative.error / error) < 1e-9 * ratio)
            #expect(pose.ambiguous == (ratio < PoseHistory.ambiguousRatio) && pose.decided == .reprojection, "a photo has no history")
            #expect(pose.pose.degrees(from: MarkerPose(rotation: alternative.rotation, translation: alternative.translation)) > 1)
            // The pose's sigma from its corners' noise: degrees and metres, small for markers 60-90 px wide.
            let sigma = try #require(pose.sigma, "marker \(id) has no sigma")
            #expect(sigma.rotation > 0.001 && sigma.rotation < 2 && sigma.translation > 1e-6 && sigma.translation < 0.01, "marker \(id): \(sigma)")
        }
        let text = try String(contentsOf: dir.appendingPathComponent("d.json"), encoding: .utf8)
        #expect(text.contains("\"sigma\"") && text.contains("\"rotation_deg\""))
    }

    /// Turns of more than 20 degrees between one frame and the next, per marker, of the reported poses
    /// and of the poses that reproject better.
    static func jumps(_ frames: [[(id: Int, pose: DetectionReport.Pose)]]) -> (reported: Int, reprojection: Int) {
        var last: [Int: (MarkerPose, MarkerPose)] = [:], jumps = (reported: 0, reprojection: 0)
        for frame in frames {
            for (id, pose) in frame {
                let reported = pose.pose, other = MarkerPose(rotation: pose.alternative!.rotation, translation: pose.alternative!.translation)
                let better = pose.ratio! >= 1 ? reported : other
                if let (r, b) = last[id] {
                    if reported.degrees(from: r) > 20 { jumps.reported += 1 }
                    if better.degrees(from: b) > 20 { jumps.reprojection += 1 }
                }
                last[id] = (reported, better)
            }
        }
        return jumps
    }

    @Test func inAVideoAnAmbiguousMarkerIsDecidedByItsFrames() throws {
        let dir = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let run = try CLI.run(["detect", Self.single.appendingPathComponent("video.avi").path, "--calibration",
                               Self.single.appendingPathComponent("intrinsics.yml").path, "--marker-size", "5cm", "--json", "v.json"], in: dir)
        #expect(run.status == 0, "\(run.stderr)")
        let frames = try Self.poses(try Data(contentsOf: dir.appendingPathComponent("v.json")))
        let all = frames.flatMap { $0 }
        let ambiguous = all.filter { $0.pose.ambiguous == true }, byHistory = all.filter { $0.pose.decided == .history }
        let jumps = Self.jumps(frames)
        print("measured: video.avi, \(all.count) poses in \(frames.count) frames: \(ambiguous.count) ambiguous, \(byHistory.count) decided by history; turns of more than 20 degrees from one frame to the next: \(jumps.reported) reported, \(jumps.reprojection) by reprojection alone")
        #expect(byHistory.count > 50 && byHistory.allSatisfy { $0.pose.ambiguous == true })
        #expect(all.filter { $0.pose.ambiguous == false }.allSatisfy { $0.pose.decided == .reprojection && $0.pose.ratio! >= PoseHistory.ambiguousRatio })
        #expect(jumps.reported <= jumps.reprojection)
    }

    /// `--smooth` on a video: every pose says it is smoothed (the frame's own error and alternative kept);
    /// on an image there is nothing before to smooth with; without poses a note says what is missing.
    @Test func smoothPosesSayTheyAreSmoothed() throws {
        let dir = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let calibration = Self.single.appendingPathComponent("intrinsics.yml").path
        let video = try CLI.run(["detect", Self.single.appendingPathComponent("video.avi").path, "--calibration", calibration, "--marker-size", "5cm",
                                 "--smooth", "--json", "v.json"], in: dir)
        #expect(video.status == 0, "\(video.stderr)")
        let frames = try Self.poses(try Data(contentsOf: dir.appendingPathComponent("v.json")))
        let poses = frames.flatMap { $0 }
        #expect(poses.count == 819 && poses.allSatisfy { $0.pose.smoothed == true && $0.pose.alternative != nil && $0.pose.sigma != nil })
        let image = try CLI.run(["detect", Self.single.appendingPathComponent("image-test.png").path, "--calibration", calibration, "--marker-size", "5cm",
                                 "--smooth", "--json", "i.json"], in: dir)
        #expect(image.status == 0)
        #expect(try Self.poses(try Data(contentsOf: dir.appendingPathComponent("i.json")))[0].allSatisfy { $0.pose.smoothed == nil })
        let bare = try CLI.run(["detect", Self.single.appendingPathComponent("image-test.png").path, "--smooth"], in: dir)
        #expect(bare.status == 0 && bare.stderr.contains("--smooth smooths poses"))
    }
}

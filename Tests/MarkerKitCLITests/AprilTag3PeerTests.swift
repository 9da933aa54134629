import AprilTagPeer
import Foundation
import MarkerKit
import Testing

/// AprilTag 3 (Debian's libapriltag 3.3) as the peer for AprilTags: its IDs and corners in OpenCV's
/// conventions, so they compare with the truth and with MarkerKit's; and MarkerKit reads at least what it
/// reads, size by size, with no wrong ID.
@Suite struct AprilTag3PeerTests {
    /// On sampled renders of apriltag_36h11 through the webcam camera: AprilTag 3's corners land on the
    /// true corners (a corner order or half-pixel mistake would show as errors of a side or of 0.5 px), its
    /// IDs are the truth's, and MarkerKit's recall is at least AprilTag 3's in every size bucket.
    @Test func aprilTag3ReadsRendersInOpenCVsConventionsAndMarkerKitReadsAtLeastAsMany() throws {
        let dictionary = MarkerDictionary.named(.aprilTag36h11)
        let aprilTag = try #require(MarkerVerification.Contender.aprilTag3(dictionary: dictionary))
        let camera = BuiltInCamera.webcam(width: 1280, height: 720)
        var verification = MarkerVerification(contenders: [MarkerVerification.Contender.all(dictionary: dictionary)[0], aprilTag], renders: 150,
                                              sampler: MarkerSceneSampler(camera: camera, width: 1280, height: 720, seed: 11, dictionary: dictionary))
        let trials = try verification.run(jobs: 2)
        let summary = MarkerVerificationSummary(trials: trials, detectors: ["markerkit", "apriltag3"], seed: 11, width: 1280, height: 720,
                                                camera: camera.name)
        let (ours, theirs) = (summary.overall[0], summary.overall[1])
        print("measured: 150 apriltag_36h11 renders: recall markerkit \(ours.recall), apriltag3 \(theirs.recall); corner RMSE \(ours.cornerRMSE ?? -1), \(theirs.cornerRMSE ?? -1) px")
        #expect(theirs.recall > 0.5 && theirs.wrongIDs == 0 && theirs.falsePositives == 0)
        #expect(try #require(theirs.cornerP50) < 0.3)
        #expect(ours.wrongIDs == 0 && ours.falsePositives == 0)
        for bucket in summary.bySize.buckets where bucket.figures[0].markers > 0 {
            #expect(bucket.figures[0].recall >= bucket.figures[1].recall, "\(bucket.label) px: markerkit \(bucket.figures[0].recall), apriltag3 \(bucket.figures[1].recall)")
        }
    }

    /// Only AprilTag families are AprilTag 3's; images too small for it have no tags (the library itself
    /// crashes on 4x4 images); its corners on a drawn marker are OpenCV's.
    @Test func otherDictionariesAndTinyImagesAreHandled() throws {
        #expect(MarkerVerification.Contender.aprilTag3(dictionary: MarkerDictionary.named(.arucoOriginal)) == nil)
        #expect(throws: MarkerKitError.self) { try AprilTag3Detector(dictionary: MarkerDictionary.named(.arucoOriginal)) }
        let dictionary = MarkerDictionary.named(.aprilTag36h11)
        let detector = try AprilTag3Detector(dictionary: dictionary)
        for side in [1, 4, 7] {
            #expect(try detector.detect(in: GrayImage(width: side, height: side, pixels: [UInt8](repeating: 128, count: side * side))).isEmpty)
        }
        // Marker 7 drawn as OpenCV draws it, 80 px, top-left at (60, 40), on white: OpenCV's corners are
        // the outer corners of the black border, pixel centres at integers.
        // (8 cells of 10 px: the black ring and the 6x6 code, a set bit white, row by row from the top left.)
        let bits = dictionary.bits(for: 7)
        var pixels = [UInt8](repeating: 255, count: 200 * 160)
        for y in 0..<80 {
            for x in 0..<80 {
                let (cx, cy) = (x / 10 - 1, y / 10 - 1)
                let white = (0..<6).contains(cx) && (0..<6).contains(cy) && (bits.raw >> UInt64(cy * 6 + cx)) & 1 == 1
                pixels[(40 + y) * 200 + 60 + x] = white ? 255 : 0
            }
        }
        let found = try detector.detect(in: GrayImage(width: 200, height: 160, pixels: pixels))
        #expect(found.map(\.id) == [7])
        let expected = [Point2(x: 59.5, y: 39.5), Point2(x: 139.5, y: 39.5), Point2(x: 139.5, y: 119.5), Point2(x: 59.5, y: 119.5)]
        for (corner, truth) in zip(found.first?.corners ?? [], expected) { #expect(corner.distance(to: truth) < 0.3, "\(corner) against \(truth)") }
    }

    /// `verify markers` on an AprilTag dictionary runs AprilTag 3 beside OpenCV.
    @Test func verifyMarkersRunsAprilTag3OnAprilTags() throws {
        let dir = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let result = try CLI.run(["verify", "markers", "--dictionary", "apriltag_36h11", "--renders", "4", "--size", "640x480", "--jobs", "1"], in: dir)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("\napriltag3 "), "\(result.stdout)")
        let plain = try CLI.run(["verify", "markers", "--renders", "2", "--size", "640x480", "--jobs", "1"], in: dir)
        #expect(plain.status == 0 && !plain.stdout.contains("apriltag3"), "\(plain.stdout)")
    }

    /// `bench` on an AprilTag dictionary times AprilTag 3 on the same frames, with its recall.
    @Test func benchTimesAprilTag3OnAprilTags() throws {
        let dir = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let result = try CLI.run(["bench", "--only", "markers", "--quick", "--dictionary", "apriltag_36h11", "--sizes", "640x480", "--repeats", "1",
                                  "--threads", "1"], in: dir)
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n")
        let peerLines = lines.filter { $0.hasPrefix("  apriltag3 ") }
        // 0 markers, 10 markers, and the cluttered frame with 10.
        #expect(peerLines.count == 3, "\(result.stdout)")
        #expect(peerLines.count > 1 && peerLines[1].hasSuffix("recall 100.0%"), "\(result.stdout)")
    }
}

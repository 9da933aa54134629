import Foundation
import Testing
@testable import MarkerKit

/// Markers on cards in a cluttered room (`ClutterSceneSampler`, `--profile cluttered`, the bench's
/// cluttered cases): pages of text, grids of squares, codes of no dictionary, a textured or printed
/// background. Every marker OpenCV 4.6 reads, MarkerKit reads, and nothing of the clutter is read.
@Suite struct ClutteredScenesTests {
    static let camera = BuiltInCamera.webcam(width: 640, height: 480)

    /// The same seed gives the same scenes; every marker lies whole in the image and is at least 8 px; the
    /// clutter is there (more targets than markers and their cards).
    @Test func theSameSeedGivesTheSameScenesWithClutterBesideTheMarkers() throws {
        var a = ClutterSceneSampler(camera: Self.camera, width: 640, height: 480, seed: 4)
        var b = ClutterSceneSampler(camera: Self.camera, width: 640, height: 480, seed: 4)
        for _ in 0..<6 {
            let (x, y) = (try a.nextScene(), try b.nextScene())
            #expect(x.markers.map(\.truth.id) == y.markers.map(\.truth.id))
            #expect(x.markers.map(\.truth.corners) == y.markers.map(\.truth.corners))
            #expect((3...30).contains(x.markers.count))
            #expect(x.scene.targets.count > 2 * x.markers.count, "no clutter: \(x.scene.targets.count) targets for \(x.markers.count) markers")
            #expect(Set(x.markers.map(\.truth.id)).count == x.markers.count)
            for marker in x.markers.map(\.truth) {
                #expect(marker.sidePixels >= 8)
                #expect(marker.corners.allSatisfy { $0.x > 4 && $0.y > 4 && $0.x < 635 && $0.y < 475 })
            }
        }
        let bench = try BenchmarkScenes.cluttered(count: 50, width: 640, height: 480, frames: 2)
        #expect(bench.map(\.markers.count) == [50, 50])
    }

    /// 40 sampled cluttered renders at 640x480 (seed 5): every marker OpenCV reads, MarkerKit reads, with
    /// no wrong ID and no false marker from the clutter; and at least as many markers overall. (Before
    /// `ReadCheck.borderIsInk`, three stacked gray tiles of the poster in render 23 read as ID 1023.)
    @Test func everyMarkerOpenCVReadsInClutterIsRead() throws {
        var verification = MarkerVerification(contenders: [.markerkit, .openCV], renders: 40,
                                              sampler: ClutterSceneSampler(camera: Self.camera, width: 640, height: 480, seed: 5))
        let trials = try verification.run(jobs: 2)
        let ours = trials.filter { $0.outcomes["markerkit"]!.found }.count, theirs = trials.filter { $0.outcomes["opencv"]!.found }.count
        let missed = trials.filter { $0.outcomes["opencv"]!.found && !$0.outcomes["markerkit"]!.found }
        print("measured: 40 cluttered renders 640x480, \(trials.count) markers: MarkerKit \(ours), OpenCV \(theirs), OpenCV's missed \(missed.count)")
        #expect(trials.count > 300)
        #expect(missed.isEmpty, "markers OpenCV reads are missed: \(missed.map { "render \($0.render ?? -1) ID \($0.id)" })")
        #expect(ours >= theirs)
        #expect(trials.allSatisfy { !$0.outcomes["markerkit"]!.wrongID && $0.outcomes["markerkit"]!.falsePositives == 0 })
    }
}

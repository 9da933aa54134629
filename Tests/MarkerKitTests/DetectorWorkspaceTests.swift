import Testing
@testable import MarkerKit

/// One workspace carried from frame to frame (as `track` does) gives exactly what a fresh detector gives,
/// also when the frame size changes between frames and the reduced search switches on and off.
@Suite struct DetectorWorkspaceTests {
    @Test func aReusedWorkspaceDetectsAsAFreshOne() throws {
        let renderer = SceneRenderer()
        var frames: [GrayImage] = []
        for (index, (w, h)) in [(640, 480), (1920, 1080), (800, 600)].enumerated() {
            let scene = try BenchmarkScenes.markers(count: 10, width: w, height: h, seed: UInt64(100 + index))
            frames.append(try renderer.render(scene))
        }
        let detector = MarkerDetector()
        let workspace = DetectorWorkspace()
        var none: StageTimings? = nil
        for (index, frame) in frames.enumerated() {
            let fresh = try detector.detect(in: frame)
            let reused = try detector.detect(in: frame, workspace: workspace, timings: &none)
            #expect(fresh.count >= 8, "frame \(index): \(fresh.count) markers")
            #expect(reused == fresh, "frame \(index) (\(frame.width)x\(frame.height))")
        }
        // The 1080p search ran on a half-size copy; the binary buffer follows the last frame.
        #expect(workspace.gray.width == 0 && workspace.reduced.width == 960 && workspace.binary.width == 800)
    }

    @Test func theCornerRefinerGivesTheSameCornersWithReusedScratch() throws {
        let scene = try BenchmarkScenes.markers(count: 10, width: 1280, height: 720, seed: 5)
        let image = try SceneRenderer().render(scene)
        let truth = try SceneTruth.markers(of: scene)
        var scratch = CornerRefiner.Scratch()
        for marker in truth {
            let rough = marker.corners.map { Point2(x: ($0.x * 2).rounded() / 2, y: ($0.y * 2).rounded() / 2) }
            #expect(CornerRefiner.refine(rough, in: image, scratch: &scratch) == CornerRefiner.refine(rough, in: image))
        }
    }
}

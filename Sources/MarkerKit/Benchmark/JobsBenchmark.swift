import Foundation

/// The bench's folder rows: a folder of frames detected as `detect --jobs N` runs it (`OrderedJobs`, a
/// workspace per job), MarkerKit's detector against OpenCV's detectMarkers on the same frames with the same
/// number of jobs, the worker pool and OpenCV's threads set to the same count. The figure is frames a
/// second over the whole folder, so it counts what the jobs gain together, not one frame's time.
extension DetectorBenchmark {
    public struct JobsCase: Codable, Sendable {
        public let name: String
        public let jobs: Int
        public let frames: Int
        /// Frames a second over the folder (the median of the runs), by contender.
        public let framesPerSecond: [String: Double]
        /// Markers found with the right ID at the right place over markers present.
        public let recall: [String: Double]
    }

    /// The next frame of the folder to take (takes never overlap).
    private final class NextFrame: @unchecked Sendable { var index = 0 }

    /// Frames of 10 markers at 1280x720 (8, 4 with `quick`), each a different scene.
    func jobsFrames(renderer: SceneRenderer) throws -> (images: [GrayImage], truths: [[SceneTruth.Marker]]) {
        var images: [GrayImage] = [], truths: [[SceneTruth.Marker]] = []
        for k in 0..<(quick ? 4 : 8) {
            let scene = try BenchmarkScenes.markers(count: 10, width: 1280, height: 720, seed: UInt64(700 + k), dictionary: dictionary)
            images.append(try renderer.render(scene))
            truths.append(try SceneTruth.markers(of: scene))
        }
        return (images, truths)
    }

    /// The folder detected with `jobs` jobs by each contender, 3 runs (1 with `quick`).
    func jobsCase(images: [GrayImage], truths: [[SceneTruth.Marker]], jobs: Int) throws -> JobsCase {
        let dictionary = self.dictionary
        let contenders: [(String, () -> (GrayImage) throws -> [MarkerDetection])] = [
            ("markerkit", {
                let workspace = DetectorWorkspace(), detector = MarkerDetector(dictionary: dictionary)
                workspace.frameWorkers = WorkerPool.share(jobs: jobs)
                return { image in
                    var none: StageTimings? = nil
                    return try detector.detect(in: image, workspace: workspace, timings: &none)
                }
            }),
            ("opencv", { { try OpenCVArucoDetector(dictionary: dictionary).detect(in: $0) } }),
        ]
        var rates: [String: Double] = [:], recall: [String: Double] = [:]
        for (name, make) in contenders {
            var seconds: [Double] = [], found = 0, present = 0
            for run in 0..<(quick ? 1 : 3) {
                var results: [[MarkerDetection]] = []
                let taken = NextFrame()
                let milliseconds = try time {
                    try OrderedJobs.run(jobs: jobs, makeState: { (detect: make(), frame: -1) }, take: { state in
                        // One take at a time (OrderedJobs serialises them): the frames in order.
                        guard taken.index < images.count else { return false }
                        state.frame = taken.index
                        taken.index += 1
                        return true
                    }, work: { state in try state.detect(images[state.frame]) }, deliver: { results.append($0) })
                }
                seconds.append(milliseconds / 1000)
                guard run == 0 else { continue }
                for (detections, truth) in zip(results, truths) {
                    present += truth.count
                    found += truth.filter { Self.finds(detections, $0) }.count
                }
            }
            rates[name] = Double(images.count) / median(seconds)
            recall[name] = Double(found) / Double(max(present, 1))
        }
        return JobsCase(name: "folder of \(images.count) frames 1280x720, 10 markers each, \(counted(jobs, "job"))", jobs: jobs, frames: images.count,
                        framesPerSecond: rates, recall: recall)
    }
}

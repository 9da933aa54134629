import ArgumentParser
import Foundation
import MarkerKit

struct Track: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Live marker detection from a camera (or a video file), as JSON lines; with a calibration, poses.",
        discussion: """
        Without --calibration and --marker-size each frame gives the markers' IDs and corners; with both, \
        each marker's pose too. With a display, a preview window shows outlines, IDs, axes and cubes (q closes it and stops). \
        From a camera only the newest frame is processed, so the output never lags; frames skipped meanwhile \
        are counted as dropped. Damaged camera frames (MJPEG cut short over USB) are skipped and counted; \
        30 in a row end the run. From a video file every frame is processed, and the output is the same as \
        'markerkit detect --jsonl' on that file. Ctrl-C stops; everything written so far stays.

        Examples:
          markerkit track --device /dev/video0 --jsonl -
          markerkit track --device /dev/video0 --calibration webcam --marker-size 50mm --jsonl -
          markerkit track --device clip.avi --calibration intrinsics.yml --marker-size 5cm --record tracked.avi
        """
    )

    @OptionGroup var source: SourceOptions
    @OptionGroup var dictionaryOption: DictionaryOption
    @OptionGroup var poseOptions: PoseOptions
    @OptionGroup var forceOption: ForceOption
    @Option(help: ArgumentHelp("Write one JSON object per frame and line to this file, or - for stdout.", valueName: "file|-")) var jsonl: String?
    @Option(help: ArgumentHelp("Record the annotated picture to a video file (.avi or .mp4).", valueName: "file")) var record: String?
    @Flag(name: .customLong("no-scale"), help: "Refuse a camera streaming another size than the calibration's (by default a size of the same aspect ratio gets the intrinsics scaled).")
    var noScale = false

    func run() throws {
        var estimator = try poseOptions.estimator()
        let transform = try source.transform()
        let recordURL = record.map { URL(fileURLWithPath: $0) }
        if let recordURL {
            try OutputFiles.checkDestination(recordURL, force: forceOption.force)
            guard ["avi", "mp4"].contains(recordURL.pathExtension.lowercased()) else {
                throw MarkerKitError.cannotWrite("cannot record to '\(recordURL.path)': use .avi or .mp4")
            }
        }
        let jsonURL = try outputFile(jsonl, force: forceOption.force)
        let isCamera = source.isCamera
        let feed = try source.open(color: recordURL != nil)
        defer { feed.stop() } // also when a frame throws: the reading thread must be done before exit
        reportCameraSetup(feed.camera, locking: true)
        if let camera = feed.camera, let stored = estimator {
            let fit = try CalibrationFit(stored.calibration, width: camera.width, height: camera.height, live: CameraState(camera: camera), scale: !noScale)
            fit.notices.forEach(note)
            fit.warnings.forEach(warn)
            estimator = MarkerPoseEstimator(calibration: fit.calibration, side: stored.side)
        }
        var analyzer = MarkerFrameAnalyzer(poseEstimator: estimator, transform: transform)
        analyzer.detector = MarkerDetector(dictionary: dictionaryOption.dictionary)
        var lines = try jsonl.map { _ in try JSONLines(url: jsonURL) }
        var writer: VideoFileWriter?
        var detections = 0
        var ids = Set<Int>()
        let preview = PreviewWindow(title: "markerkit track")
        Interrupt.install()
        // One frame kept and read into again and again (with the analyzer's and the JSON writer's kept
        // buffers, a stream of one size allocates nothing per frame).
        var sourced = SourcedFrame.empty
        var lost: String?
        while !Interrupt.requested, try nextFrame(feed, into: &sourced, lost: &lost) {
            let (result, annotated) = try analyzer.analyze(sourced, annotate: recordURL != nil || preview.isAvailable)
            if let annotated, preview.show(annotated) == "q" { break }
            try lines?.write(result)
            if let recordURL, let annotated {
                if writer == nil {
                    writer = try VideoFileWriter(url: recordURL, width: annotated.width, height: annotated.height,
                                                 framesPerSecond: isCamera ? (source.camera.fps ?? 30) : 25,
                                                 fourcc: recordURL.pathExtension.lowercased() == "mp4" ? "mp4v" : "MJPG")
                }
                try writer?.write(annotated)
            }
            detections += result.markers.count
            for marker in result.markers { ids.insert(marker.id) }
            status(String(format: "frame %d, %@, %.1f fps, %d dropped", sourced.index, counted(result.markers.count, "marker"), feed.framesPerSecond, feed.dropped))
        }
        feed.stop()
        endStatus()
        try lines?.finish()
        try writer?.finish()
        let bad = feed.badFrames > 0 ? ", \(feed.badFrames) bad skipped" : ""
        let idList = ids.isEmpty ? "" : ", IDs " + ids.sorted().map(String.init).joined(separator: " ")
        let summary = String(format: "%@, %@%@, %.1f fps, %d dropped%@%@", counted(feed.processed, "frame"), counted(detections, "detection"),
                             idList, feed.framesPerSecond, feed.dropped, bad,
                             Interrupt.requested ? " (stopped by Ctrl-C)" : "")
        if jsonl == "-" { FileHandle.standardError.write(Data((summary + "\n").utf8)) } else { print(summary) }
        if let url = writer?.url { print("recorded \(url.relativePath)") }
        if let lost { throw MarkerKitError.cameraLost(lost + "; everything up to then is written") }
    }

    /// The next frame; a camera lost on the way ends the stream like its end (so what was written is
    /// finished and kept), with the reason in `lost`.
    private func nextFrame(_ feed: FrameFeed, into sourced: inout SourcedFrame, lost: inout String?) throws -> Bool {
        do {
            return try feed.next(into: &sourced)
        } catch MarkerKitError.cameraLost(let message) {
            lost = message
            return false
        }
    }
}

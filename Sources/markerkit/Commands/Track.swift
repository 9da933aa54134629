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
    @OptionGroup var diamondOptions: DiamondOptions
    @OptionGroup var forceOption: ForceOption
    @Option(help: ArgumentHelp("Write one JSON object per frame and line to this file, or - for stdout.", valueName: "file|-")) var jsonl: String?
    @Option(help: ArgumentHelp("Record the annotated picture to a video file (.avi or .mp4).", valueName: "file")) var record: String?
    @Option(help: ArgumentHelp("Also find this marker map's pose in every frame (a sheet's map from 'generate markers'), or this ChArUco board's or checkerboard's corners (with --calibration, its pose).", valueName: "board.json")) var board: String?
    @Flag(name: .customLong("no-scale"), help: "Refuse a camera streaming another size than the calibration's (by default a size of the same aspect ratio gets the intrinsics scaled).")
    var noScale = false

    func run() throws {
        let (charuco, map, checkerboard, boardEstimator) = try BoardOptions.detected(board: board, dictionary: dictionaryOption.dictionary, poses: poseOptions.estimator)
        var estimator = boardEstimator
        let transform = try source.transform()
        let isCamera = source.isCamera
        let recording = try record.map {
            try TrackingSession.Recording(url: URL(fileURLWithPath: $0), framesPerSecond: isCamera ? (source.camera.fps ?? 30) : 25, force: forceOption.force)
        }
        let jsonURL = try outputFile(jsonl, force: forceOption.force)
        let dictionary = try charuco?.dictionary ?? map?.markerDictionary() ?? dictionaryOption.dictionary
        let (diamonds, diamondPoses) = try diamondOptions.readers(dictionary: dictionary, calibration: poseOptions.calibration)
        let feed = try source.open(color: recording != nil)
        defer { feed.stop() } // also when a frame throws: the reading thread must be done before exit
        reportCameraSetup(feed.camera, locking: true)
        if let camera = feed.camera, let stored = estimator {
            let fit = try CalibrationFit(stored.calibration, width: camera.width, height: camera.height, live: CameraState(camera: camera), scale: !noScale)
            fit.notices.forEach(note)
            fit.warnings.forEach(warn)
            estimator = MarkerPoseEstimator(calibration: fit.calibration, side: stored.side)
        }
        var analyzer = MarkerFrameAnalyzer(poseEstimator: estimator, transform: transform)
        analyzer.detector = MarkerDetector(dictionary: dictionary)
        (analyzer.board, analyzer.markerMap) = (charuco.map { CharucoDetector(board: $0) }, map.map { MarkerMapPose(map: $0) })
        analyzer.checkerboard = checkerboard.map { CheckerboardPose(board: $0) }
        // A diamond's pose through the calibration as fitted to the camera, when --marker-size gave one.
        (analyzer.diamonds, analyzer.diamondPoses) = (diamonds, diamondPoses.map { MarkerPoseEstimator(calibration: estimator?.calibration ?? $0.calibration, side: $0.side) })
        if poseOptions.smooth { analyzer.smoother = PoseSmoother(ids: analyzer.detector.dictionary.count) }
        var session = TrackingSession(analyzer: analyzer, recording: recording)
        var lines = try jsonl.map { _ in try JSONLines(url: jsonURL) }
        let preview = PreviewWindow(title: "markerkit track")
        var scaled = ScaledCalibrationNotes(estimator?.calibration)
        Interrupt.install()
        try session.run(feed, annotate: preview.isAvailable, shouldStop: { Interrupt.requested }) { result, annotated, sourced in
            scaled.picture(width: result.width, height: result.height)
            if let annotated, preview.show(annotated) == "q" { return false }
            try lines?.write(result)
            status(String(format: "frame %d, %@, %.1f fps, %d dropped", sourced.index, counted(result.markers.count, "marker"), feed.framesPerSecond, feed.dropped))
            return true
        }
        feed.stop()
        endStatus()
        try lines?.finish()
        let summary = session.summary(feed) + (Interrupt.requested ? " (stopped by Ctrl-C)" : "")
        if jsonl == "-" { FileHandle.standardError.write(Data((summary + "\n").utf8)) } else { print(summary) }
        if let url = session.recorded { print("recorded \(url.relativePath)") }
        if let lost = session.lost { throw MarkerKitError.cameraLost(lost + "; everything up to then is written") }
    }
}

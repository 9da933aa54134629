import ArgumentParser
import Foundation
import MarkerKit

struct Detect: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Find markers in images, folders and video files; corners, IDs and poses.",
        discussion: """
        Corners are in pixels with integer coordinates at pixel centres (as OpenCV), in the marker's own \
        order: top-left, top-right, bottom-right, bottom-left as printed. With --calibration and \
        --marker-size each marker also gets its pose in camera coordinates (OpenCV's marker frame: x right, \
        y up, z out of the marker), translation in metres.

        A folder is read in sorted order; entries that are not images or videos are skipped with a note. \
        An image with no marker of the dictionary is read with every other OpenCV dictionary, and one line \
        says which would read how many markers there (only when one does).

        When some inputs cannot be read, the others are still processed, each bad one is named on stderr \
        and the exit code is 1. FIFOs, sockets and devices are never opened: skipped with a note in a \
        folder, an error (exit 66) when named.

        Images: anything OpenCV reads (PNG, JPEG, TIFF, BMP, PGM/PPM, WebP, ...). 16-bit images whose \
        values reach 4096 keep their top byte (the full range); those below it (10- and 12-bit cameras) \
        are stretched from their darkest to their brightest value; float images are taken as 0-1; alpha \
        is ignored. A photo with an EXIF orientation is turned as viewers show it: width, height and \
        corners are in that picture, and its JSON says "orientation": {"exif": 6, "applied": true}.

        With --board (a spec from 'markerkit generate charuco') each frame also gives the board's corners found \
        in the image near its markers, only where the image shows a corner: OpenCV's corner IDs and sub-pixel \
        positions ("board" in the JSON). Markers are then read in the board's dictionary. With --calibration \
        too, the board's pose from its corners ("target"; the spec gives the markers' size).

        Images are read and detected on every core at once (--jobs), a video's frames detected on every \
        core while it is decoded; results and files come in input order, the same as with --jobs 1.

        Examples:
          markerkit detect photo.png
          markerkit detect phone.jpg --dictionary 5x5_100
          markerkit detect captures/ --json result.json --annotate annotated/
          markerkit detect clip.avi --calibration intrinsics.yml --marker-size 50mm --jsonl
          markerkit detect shots/ --board charuco.json --json corners.json --annotate annotated/
        """
    )

    @Argument(help: "Image files, folders of images, video files.")
    var inputs: [String]

    @OptionGroup var dictionaryOption: DictionaryOption
    @OptionGroup var poseOptions: PoseOptions
    @OptionGroup var diamondOptions: DiamondOptions
    @OptionGroup var forceOption: ForceOption

    @Option(help: ArgumentHelp("Write the results as JSON to this file, or - for stdout.", valueName: "file|-"))
    var json: String?

    @Flag(help: "Write one JSON object per frame and line, as frames are processed (to --json, else stdout).")
    var jsonl = false

    @Option(help: ArgumentHelp("Write annotated images (and videos) into this folder.", valueName: "dir"))
    var annotate: String?

    @Option(help: ArgumentHelp("Also find this ChArUco board's or checkerboard's corners (a spec from 'generate charuco' or 'generate checkerboard'; with --calibration, its pose), or this marker map's pose (a sheet's map from 'generate markers').", valueName: "board.json"))
    var board: String?

    @Flag(help: "Print the time spent in each detector stage to stderr.")
    var timings = false

    @OptionGroup var jobs: JobsOption

    func run() throws {
        let jobCount = try jobs.count()
        let (charuco, map, checkerboard, estimator) = try BoardOptions.detected(board: board, dictionary: dictionaryOption.dictionary, poses: poseOptions.estimator)
        let jsonURL = try outputFile(json ?? (jsonl ? "-" : nil), force: forceOption.force)
        let jsonToStdout = json == "-" || (json == nil && jsonl)
        let catalog = InputCatalog(paths: inputs)
        for line in catalog.notes { note(line) }
        var failures = catalog.problems
        for problem in catalog.problems { report(problem) }
        let annotation = try annotate.map { folder in
            try OutputFiles.checkDirectoryDestination(URL(fileURLWithPath: folder), names: DetectionJob.annotationNames(for: catalog.items), force: forceOption.force)
            return try OutputFolder(folder, option: "--annotate")
        }

        let detector = MarkerDetector(dictionary: try charuco?.dictionary ?? map?.markerDictionary() ?? dictionaryOption.dictionary)
        var job = DetectionJob(detector: detector, poseEstimator: estimator,
                               annotationDirectory: annotation?.url, collectTimings: timings)
        (job.board, job.markerMap, job.checkerboard, job.smooth) = (charuco.map { CharucoDetector(board: $0) }, map.map { MarkerMapPose(map: $0) }, checkerboard.map { CheckerboardPose(board: $0, photos: true) }, poseOptions.smooth)
        (job.diamonds, job.diamondPoses) = try diamondOptions.readers(dictionary: detector.dictionary, calibration: poseOptions.calibration)
        var stream = try jsonl ? JSONLines(url: jsonURL) : nil
        var collected: [DetectionReport.FrameResult] = []
        var processed = 0, scaled = ScaledCalibrationNotes(estimator?.calibration)
        try job.run(catalog.items, jobs: jobCount, onFrame: { result in // results, lines and files in input order
            scaled.picture(width: result.width, height: result.height)
            if stream != nil { try stream!.write(result) } else if json != nil { collected.append(result) }
        }, onItem: { item, outcome in
            do {
                let summary = try outcome.get()
                processed += 1
                if !jsonToStdout { print(Self.describe(summary)) }
                if let hint = Self.hint(for: item, summary, board: charuco.map(CalibrationTarget.charuco) ?? checkerboard.map(CalibrationTarget.checkerboard), asked: detector.dictionary) {
                    if jsonToStdout { FileHandle.standardError.write(Data((hint + "\n").utf8)) } else { print(hint) }
                }
            } catch let error as MarkerKitError {
                report(error)
                failures.append(error)
            }
        })
        if let jobTimings = job.timings { FileHandle.standardError.write(Data((jobTimings.table + "\n").utf8)) }
        guard processed > 0 else { // every failure is on stderr already; a run that read nothing leaves nothing, not even the --annotate folder
            annotation?.removeIfCreated()
            throw ExitCode(failures.first?.exitCode ?? 66)
        }
        try stream?.finish()
        if !jsonl, json != nil {
            let data = try DetectionReport(frames: collected).encoded()
            if let jsonURL { try OutputFiles.writeProtected(data, to: jsonURL, force: forceOption.force) } else { FileHandle.standardOutput.write(data) }
        }
        if !failures.isEmpty { throw ExitCode(1) }
    }
}

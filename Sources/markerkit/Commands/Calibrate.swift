import ArgumentParser
import Foundation
import MarkerKit

struct Calibrate: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Camera intrinsics from chessboard or ChArUco images, stored by name (OpenCV FileStorage YAML; calibrations list says where).",
        discussion: """
        Each image is searched for the board (findChessboardCorners + cornerSubPix, which gave a lower \
        error than findChessboardCornersSB on OpenCV's sample images) or, with a ChArUco board spec, for \
        its markers and corners: a ChArUco view counts with 6 or more corners not on one line, so the \
        board may leave the image, which puts corners where the lens distorts most. Views whose error is more than 3 \
        times the median are dropped and the solve repeated; every image not used is named with the reason. \
        An existing calibration is never replaced without --force. Images are searched on every core at \
        once (--jobs), with the same result as --jobs 1.

        Examples:
          markerkit calibrate shots/ --board board.json --name webcam
          markerkit calibrate left*.jpg --inner 9x6 --square 25mm --name left --report left.pdf
          markerkit calibrate shots/ --inner 9x6 --square 1in --model opencv8 -o webcam.xml
          markerkit calibrate shots/ --inner 9x6 --square 25mm --model opencv4 --name ros  # radtan, for Kalibr and ROS
          markerkit calibrate views/ --name webcam       # views/capture.json from 'markerkit capture'
          markerkit calibrate shots/ --board charuco.json --name webcam   # from 'generate charuco'
          markerkit calibrate --rig left/ right/ --inner 9x6 --square 25mm --name stereo  # a camera pair

        """
    )

    @Argument(help: "Images of the board, or folders of them; with --rig, one folder per camera.")
    var inputs: [String]

    @Option(help: ArgumentHelp("The board spec written by 'markerkit generate checkerboard' or 'generate charuco'.", valueName: "board.json"))
    var board: String?

    @Option(help: ArgumentHelp("Inner corners, COLUMNSxROWS (9x6 for 10x7 squares), instead of --board.", valueName: "cols x rows"), transform: InnerCorners.parse)
    var inner: InnerCorners?

    @Option(help: ArgumentHelp("Square size with a unit, with --inner.", valueName: "length"), transform: LengthArgument.positive)
    var square: Length?

    @Option(help: ArgumentHelp("Name to store the calibration under (default: camera).", valueName: "name"))
    var name: String?

    @Option(name: .shortAndLong, help: ArgumentHelp("Write to this file instead of the store (.yaml, .xml or .json).", valueName: "file"))
    var output: String?

    @OptionGroup var lens: LensModelOptions

    @Flag(help: "Also calibrate each half of the views on its own and compare the two with their uncertainty: says whether the lens model is too lean for the lens (mrcal's cross-validation; 6 views or more).")
    var crossValidate = false

    @Option(help: ArgumentHelp("Write a report: per-view errors, residuals, coverage, distortion, parameters (.pdf, .png, .svg).", valueName: "file"))
    var report: String?

    @OptionGroup var rigOptions: RigOptions

    @Flag(help: "Replace an existing calibration or file.")
    var force = false

    @OptionGroup var jobs: JobsOption

    func validate() throws {
        if board != nil && (inner != nil || square != nil) { throw ValidationError("give --board or --inner with --square, not both") }
        if (inner == nil) != (square == nil) { throw ValidationError("--inner and --square go together") }
    }

    func run() throws {
        if rigOptions.rig { return try runRig() }
        let jobCount = try jobs.count()
        let inputs = try CalibrationJob.Inputs.from(paths: self.inputs)
        for line in inputs.notes { note(line) }
        let target = try BoardOptions.target(board: board, inner: inner, square: square, log: inputs.log)
        let name = try naming("--name: ") { try CalibrationStore.normalized(name: self.name ?? CalibrationStore.defaultName) }
        let location = try output.map(Self.file) ?? CalibrationLocation(name: name)
        try location.checkDestination(force: force)
        let reportTarget = try reportDestination(report, force: force)

        var job = CalibrationJob(target: target, images: inputs.images, name: name)
        job.camera = inputs.log?.camera
        try lens.apply(to: &job.calibrator)
        job.jobs = jobCount
        let progress = ProgressBar(label: "finding boards")
        Interrupt.install()
        var result = try job.run(progress: { done, total, file in
            progress.update(done, total, file)
            if done == total { progress.finish() }
            try Interrupt.checkpoint("calibration")
        }, checkpoint: { try Interrupt.checkpoint("calibration") })
        var crossValidation: String?
        if crossValidate {
            // The calibration stands whatever the check says (recorded with it, the verdict weighs it); a check
            // that cannot be made says why. A capture log's focus per view: views at several focus values are split by focus.
            let focus = Dictionary((inputs.log?.images ?? []).compactMap { e in e.focus.map { (e.file, $0) } }, uniquingKeysWith: { a, _ in a })
            do {
                let check = try CrossValidation.run(job.calibrator, result: result, focus: focus)
                result.calibration.provenance?.crossValidation = check
                crossValidation = check.verdict
            } catch let error as MarkerKitError {
                crossValidation = "cross-validation not possible: \(error.description)"
            }
        }
        print("calibrated from \(result.used.count) of \(inputs.images.count) images")
        for line in CalibrationSummary.lines(for: result.calibration) { print(line) }
        for view in result.views where view.status != .used { print("  not used: \(view.file): \(view.reason)") }
        if let crossValidation { print(crossValidation) }

        if let (url, format) = reportTarget {
            var files = OutputFiles()
            try files.add(try CalibrationReport(result: result).document(), as: format, at: url, dpi: 150)
            for file in try files.commit() { print("report \(file.relativePath)") }
        }
        try location.write(result.calibration, force: force)
        print("\(location.inStore ? "stored" : "wrote") \(location.shown)")
    }
}

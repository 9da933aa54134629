import ArgumentParser
import Foundation
import MarkerKit

struct Calibrate: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Camera intrinsics from chessboard images, stored in Calibrations/ (OpenCV FileStorage YAML).",
        discussion: """
        Each image is searched for the board (findChessboardCorners + cornerSubPix, which gave a lower \
        error than findChessboardCornersSB on OpenCV's sample images). Views whose error is more than 3 \
        times the median are dropped and the solve repeated; every image not used is named with the reason. \
        An existing calibration is never replaced without --force. Images are searched on every core at \
        once (--jobs), with the same result as --jobs 1.

        Examples:
          markerkit calibrate shots/ --board board.json --name webcam
          markerkit calibrate left*.jpg --inner 9x6 --square 25mm --name left --report left.pdf
          markerkit calibrate shots/ --inner 9x6 --square 1in --model opencv8 -o webcam.xml
          markerkit calibrate views/ --name webcam       # views/capture.json from 'markerkit capture'

        """
    )

    @Argument(help: "Chessboard images, or folders of them.")
    var inputs: [String]

    @Option(help: ArgumentHelp("The board spec written by 'markerkit generate checkerboard'.", valueName: "board.json"))
    var board: String?

    @Option(help: ArgumentHelp("Inner corners, COLUMNSxROWS (9x6 for 10x7 squares), instead of --board.", valueName: "cols x rows"))
    var inner: String?

    @Option(help: ArgumentHelp("Square size with a unit, with --inner.", valueName: "length"))
    var square: String?

    @Option(help: ArgumentHelp("Name to store the calibration under in Calibrations/ (default: camera).", valueName: "name"))
    var name: String?

    @Option(name: .shortAndLong, help: ArgumentHelp("Write to this file instead of the store (.yaml, .xml or .json).", valueName: "file"))
    var output: String?

    @Option(help: ArgumentHelp("Lens model: opencv5 (k1 k2 p1 p2 k3), opencv8 (rational), fisheye.", valueName: "model"))
    var model = "opencv5"

    @Flag(help: "Fix fx/fy (pinhole models).")
    var fixAspect = false

    @Flag(help: "Assume no tangential distortion (p1 = p2 = 0).")
    var zeroTangent = false

    @Option(help: ArgumentHelp("Write a report: per-view errors, residuals, coverage, distortion, parameters (.pdf, .png, .svg).", valueName: "file"))
    var report: String?

    @Flag(help: "Replace an existing calibration or file.")
    var force = false

    @OptionGroup var jobs: JobsOption

    func validate() throws {
        if board != nil && (inner != nil || square != nil) { throw ValidationError("give --board or --inner with --square, not both") }
        if (inner == nil) != (square == nil) { throw ValidationError("--inner and --square go together") }
    }

    /// A capture log named directly or found in the one folder given.
    func captureLog() throws -> (log: CaptureLog, images: [URL])? {
        guard inputs.count == 1 else { return nil }
        var url = URL(fileURLWithPath: inputs[0])
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), isDirectory.boolValue {
            url = url.appendingPathComponent("capture.json")
            guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        } else if url.pathExtension.lowercased() != "json" {
            return nil
        }
        return try CaptureLog.read(from: url)
    }

    func run() throws {
        let jobCount = try jobs.count()
        let capture = try captureLog()
        let checkerboard: Checkerboard
        if let board {
            checkerboard = try BoardSpec.read(from: URL(fileURLWithPath: board)).checkerboard()
        } else if let inner, let square {
            let (columns, rows) = try Checkerboard.parseInnerCorners(inner)
            checkerboard = try Checkerboard(innerColumns: columns, innerRows: rows, square: try Length.positive(square, what: "--square"))
        } else if let fromLog = try capture?.log.checkerboard() {
            checkerboard = fromLog
        } else {
            throw MarkerKitError.invalidArgument("give --board board.json, or --inner and --square (or a capture log that names its board)")
        }
        guard let lensModel = CameraCalibration.Model(rawValue: model), [.opencv5, .opencv8, .fisheye].contains(lensModel) else {
            throw MarkerKitError.invalidArgument("unknown --model '\(model)' (opencv5, opencv8, fisheye)")
        }
        let calibrationName = name ?? "camera"
        try CalibrationStore.validate(name: calibrationName)
        let store = CalibrationStore.default
        let target = output.map { URL(fileURLWithPath: $0) } ?? store.url(for: calibrationName)
        let targetFormat = try Self.storageFormat(for: target)
        try OutputFiles.checkDestinationOrStore(target, isStore: output == nil, force: true) // existence: below
        if !force && FileManager.default.fileExists(atPath: target.path) {
            throw MarkerKitError.cannotWrite("'\(target.relativePath)' exists: add --force to replace it, or choose another --name")
        }
        let reportTarget = try report.map { path -> (URL, OutputFormat) in
            let url = URL(fileURLWithPath: path)
            let format = try OutputFormat(for: url)
            try OutputFiles.checkDestination(url, force: force)
            return (url, format)
        }

        let files: [URL]
        if let capture {
            files = capture.images
        } else {
            let catalog = InputCatalog(paths: inputs)
            for problem in catalog.problems { throw problem }
            files = catalog.items.compactMap { item -> URL? in if case .image(let url) = item { return url } else { return nil } }
        }
        guard !files.isEmpty else { throw MarkerKitError.missingInput("no images to calibrate from") }

        var calibrator = Calibrator(board: checkerboard)
        calibrator.model = lensModel
        calibrator.fixAspect = fixAspect
        calibrator.zeroTangent = zeroTangent
        let progress = ProgressBar(label: "finding boards")
        Interrupt.install()
        let (views, width, height) = try calibrator.findBoards(in: files, jobs: jobCount) { done, total, file in
            progress.update(done, total, file)
            try Interrupt.checkpoint("calibration")
        }
        progress.finish()
        let result = try calibrator.calibrate(views: views, width: width, height: height, name: calibrationName)
        try Interrupt.checkpoint("calibration")

        let calibration = result.calibration
        let used = result.used.count
        print("calibrated from \(used) of \(files.count) images")
        for line in CalibrationSummary.lines(for: calibration) { print(line) }
        for view in result.views where view.status != .used { print("  not used: \(view.file): \(view.reason)") }

        if let (url, format) = reportTarget {
            let document = try CalibrationReport(result: result).document()
            var files = OutputFiles()
            for (file, data) in zip(format.files(for: url, pageCount: document.pages.count), try document.render(as: format, dpi: 150)) {
                files.add(data, at: file)
            }
            for file in try files.commit() { print("report \(file.relativePath)") }
        }
        if output == nil {
            let stored = try store.save(calibration, force: force)
            print("stored \(stored.relativePath)")
        } else {
            try OutputFiles.writeProtected(try targetFormat.encode(calibration), to: target, force: force)
            print("wrote \(target.relativePath)")
        }
    }

    static func storageFormat(for url: URL) throws -> CalibrationFormat {
        switch url.pathExtension.lowercased() {
        case "yaml", "yml": return .opencvYAML
        case "xml": return .opencvXML
        case "json": return .json
        default: throw MarkerKitError.cannotWrite("cannot write '\(url.path)': use .yaml, .xml or .json (other formats: markerkit calibrations export)")
        }
    }
}

/// A one-line progress bar on stderr when it is a terminal; silent otherwise.
final class ProgressBar {
    let label: String
    let enabled = isatty(2) == 1

    init(label: String) { self.label = label }

    func update(_ done: Int, _ total: Int, _ item: String) {
        guard enabled, total > 0 else { return }
        let width = 24
        let filled = width * done / total
        let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
        let name = item.count > 30 ? "..." + item.suffix(27) : item
        FileHandle.standardError.write(Data("\r\(label) [\(bar)] \(done)/\(total) \(name)\u{1B}[K".utf8))
    }

    func finish() {
        guard enabled else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
    }
}

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
        When some inputs cannot be read, the others are still processed, each bad one is named on stderr \
        and the exit code is 1. FIFOs, sockets and devices are never opened: skipped with a note in a \
        folder, an error (exit 66) when named.

        Images: anything OpenCV reads (PNG, JPEG, TIFF, BMP, PGM/PPM, WebP, ...). 16-bit images whose \
        values reach 4096 keep their top byte (the full range); those below it (10- and 12-bit cameras) \
        are stretched from their darkest to their brightest value; float images are taken as 0-1; alpha \
        is ignored. A photo with an EXIF orientation is turned as viewers show it: width, height and \
        corners are in that picture, and its JSON says "orientation": {"exif": 6, "applied": true}.

        Images are read and detected on every core at once (--jobs), a video's frames detected on every \
        core while it is decoded; results and files come in input order, the same as with --jobs 1.

        Examples:
          markerkit detect photo.png
          markerkit detect phone.jpg --dictionary 5x5_100
          markerkit detect captures/ --json result.json --annotate annotated/
          markerkit detect clip.avi --calibration intrinsics.yml --marker-size 50mm --jsonl
        """
    )

    @Argument(help: "Image files, folders of images, video files.")
    var inputs: [String]

    @OptionGroup var dictionaryOption: DictionaryOption

    @OptionGroup var poseOptions: PoseOptions
    @OptionGroup var forceOption: ForceOption

    @Option(help: ArgumentHelp("Write the results as JSON to this file, or - for stdout.", valueName: "file|-"))
    var json: String?

    @Flag(help: "Write one JSON object per frame and line, as frames are processed (to --json, else stdout).")
    var jsonl = false

    @Option(help: ArgumentHelp("Write annotated images (and videos) into this folder.", valueName: "dir"))
    var annotate: String?

    @Flag(help: "Print the time spent in each detector stage to stderr.")
    var timings = false

    @OptionGroup var jobs: JobsOption

    func run() throws {
        let jobCount = try jobs.count()
        let estimator = try poseOptions.estimator()
        let annotationExisted = annotate.map { FileManager.default.fileExists(atPath: $0) } ?? true
        let annotationDirectory = try annotate.map { try Self.makeDirectory($0) }
        let jsonTarget = json ?? (jsonl ? "-" : nil)
        let jsonURL = jsonTarget.flatMap { $0 == "-" ? nil : URL(fileURLWithPath: $0) }
        if let jsonURL { try OutputFiles.checkDestination(jsonURL, force: forceOption.force) }
        let jsonToStdout = jsonTarget == "-"

        let catalog = InputCatalog(paths: inputs)
        for line in catalog.notes { note(line) }
        var failures = catalog.problems
        for problem in catalog.problems { report(problem) }

        var job = DetectionJob(detector: MarkerDetector(dictionary: dictionaryOption.dictionary), poseEstimator: estimator, annotationDirectory: annotationDirectory, collectTimings: timings)
        var stream = try jsonl ? JSONLines(url: jsonURL) : nil
        var collected: [DetectionReport.FrameResult] = []
        var processed = 0
        // Results, lines and files come in input order for any number of jobs.
        try job.run(catalog.items, jobs: jobCount, onFrame: { result in
            if stream != nil { try stream!.write(result) } else if jsonTarget != nil { collected.append(result) }
        }, onItem: { _, outcome in
            do {
                let summary = try outcome.get()
                processed += 1
                if !jsonToStdout { print(Self.describe(summary)) }
            } catch let error as MarkerKitError {
                report(error)
                failures.append(error)
            }
        })
        if let jobTimings = job.timings { FileHandle.standardError.write(Data((jobTimings.table + "\n").utf8)) }
        // Every failure is already on stderr, one line each.
        guard processed > 0 else {
            // A run that read nothing leaves nothing: not even the --annotate folder it made.
            if !annotationExisted, let annotationDirectory { rmdir(annotationDirectory.path) }
            throw ExitCode(failures.first?.exitCode ?? 66)
        }
        try stream?.finish()
        if !jsonl, let jsonTarget {
            let data = try DetectionReport(frames: collected).encoded()
            if jsonTarget == "-" {
                FileHandle.standardOutput.write(data)
            } else {
                var files = OutputFiles()
                files.add(data, at: URL(fileURLWithPath: jsonTarget))
                try files.commit()
            }
        }
        if !failures.isEmpty { throw ExitCode(1) }
    }

    static func describe(_ summary: DetectionJob.Summary) -> String {
        let ids = summary.ids.map(String.init).joined(separator: " ")
        var line = summary.frames == 1
            ? "\(summary.source): \(summary.detections) marker\(summary.detections == 1 ? "" : "s")\(ids.isEmpty ? "" : ": \(ids)")"
            : "\(summary.source): \(summary.frames) frames, \(summary.detections) detections\(ids.isEmpty ? "" : ", IDs \(ids)")"
        if let annotated = summary.annotated { line += " -> \(annotated.relativePath)" }
        return line
    }

    /// The folder for annotated output, created when its parent exists.
    static func makeDirectory(_ path: String, option: String = "--annotate") throws -> URL {
        let url = URL(fileURLWithPath: path)
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else { throw MarkerKitError.cannotWrite("\(option) '\(path)' is a file, not a folder") }
            return url
        }
        do {
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: false)
        } catch {
            throw MarkerKitError.cannotWrite("cannot create folder '\(path)' for \(option) (does its parent exist?)")
        }
        return url
    }

    func report(_ error: MarkerKitError) {
        FileHandle.standardError.write(Data("markerkit: error: \(error.description)\n".utf8))
    }
}

/// `--jsonl` output: lines to stdout as they come, or to a temporary file moved into place at the end.
struct JSONLines {
    let url: URL?
    private var handle: FileHandle
    private let temporary: URL?

    init(url: URL?) throws {
        self.url = url
        if let url {
            let temp = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).\(getpid()).tmp")
            guard FileManager.default.createFile(atPath: temp.path, contents: nil), let handle = FileHandle(forWritingAtPath: temp.path) else {
                throw MarkerKitError.cannotWrite("cannot write '\(url.path)'")
            }
            self.handle = handle
            temporary = temp
        } else {
            handle = FileHandle.standardOutput
            temporary = nil
        }
    }

    /// One line's bytes, kept from frame to frame.
    private var line: [UInt8] = []

    mutating func write(_ result: DetectionReport.FrameResult) throws {
        line.removeAll(keepingCapacity: true)
        result.appendJSONLine(to: &line)
        let descriptor = handle.fileDescriptor
        try line.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = Foundation.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                if written < 0 && errno == EINTR { continue }
                guard written > 0 else {
                    throw MarkerKitError.cannotWrite("cannot write '\(url?.path ?? "standard output")': \(String(cString: strerror(errno)))")
                }
                offset += written
            }
        }
    }

    func finish() throws {
        guard let url, let temporary else { return }
        try handle.synchronize()
        try handle.close()
        guard rename(temporary.path, url.path) == 0 else { throw MarkerKitError.cannotWrite("cannot write '\(url.path)'") }
    }
}

import Foundation

/// A calibration from image files, as `markerkit calibrate` and `markerkit capture --calibrate` run it:
/// the board searched in every image (on `jobs` threads, with the same result for any number), then the
/// solve with its outlier rounds. Progress goes to the caller once an image.
public struct CalibrationJob {
    /// The images to calibrate from, and the capture log they came with, if any.
    public struct Inputs {
        public let images: [URL]
        public let log: CaptureLog?
        /// What was left out of the folders and why (not images, videos, special files), one line each.
        public private(set) var notes: [String] = []

        public init(images: [URL], log: CaptureLog? = nil) {
            self.images = images
            self.log = log
        }

        /// A capture log named directly (a .json file) or `capture.json` in the one folder given; otherwise
        /// the images among `paths` and in the folders among them. An unreadable path throws; no image
        /// at all is a missing input.
        public static func from(paths: [String]) throws -> Inputs {
            let inputs: Inputs
            if let log = try captureLog(paths) {
                inputs = Inputs(images: log.images, log: log.log)
            } else {
                let catalog = InputCatalog(paths: paths)
                if let problem = catalog.problems.first { throw problem }
                var images: [URL] = [], videos: [String] = []
                for item in catalog.items {
                    switch item {
                    case .image(let url): images.append(url)
                    case .video(let url): videos.append(url.lastPathComponent)
                    }
                }
                var found = Inputs(images: images)
                found.notes = catalog.notes
                if !videos.isEmpty {
                    found.notes.append("skipped \(counted(videos.count, "video")) (\(videos.prefix(3).joined(separator: ", "))\(videos.count > 3 ? ", ..." : "")): calibration takes still images")
                }
                inputs = found
            }
            guard !inputs.images.isEmpty else { throw MarkerKitError.missingInput("no images to calibrate from") }
            return inputs
        }

        static func captureLog(_ paths: [String]) throws -> (log: CaptureLog, images: [URL])? {
            guard paths.count == 1 else { return nil }
            var url = URL(fileURLWithPath: paths[0])
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), isDirectory.boolValue {
                url = url.appendingPathComponent("capture.json")
                guard FileManager.default.fileExists(atPath: url.path) else { return nil }
            } else if url.pathExtension.lowercased() != "json" {
                return nil
            }
            return try CaptureLog.read(from: url)
        }
    }

    /// The board, lens model and flags.
    public var calibrator: Calibrator
    public var images: [URL]
    /// The calibration's name.
    public var name: String
    /// Threads searching images for the board.
    public var jobs = 1
    /// The camera the images came from (from the capture log), recorded in the calibration.
    public var camera: CameraState?

    public init(board: Checkerboard, images: [URL], name: String) {
        self.init(target: .checkerboard(board), images: images, name: name)
    }

    public init(target: CalibrationTarget, images: [URL], name: String) {
        calibrator = Calibrator(target: target)
        self.images = images
        self.name = name
    }

    /// Finds the board in every image and solves. `progress` gets the images done before the one being
    /// looked at, their total and its name, and once more (total, total, "") when the search is over;
    /// `checkpoint` is called after the solve. Either may throw to stop.
    public func run(progress: (Int, Int, String) throws -> Void = { _, _, _ in },
                    checkpoint: () throws -> Void = {}) throws -> Calibrator.Result {
        try calibrator.model.requireSolvable() // before any image is searched
        let (views, width, height) = try calibrator.findBoards(in: images, jobs: jobs, progress: progress)
        var result = try calibrator.calibrate(views: views, width: width, height: height, name: name)
        result.calibration.camera = camera
        try checkpoint()
        return result
    }
}

import ArgumentParser
import Foundation
import AprilTagPeer
import MarkerKit

struct Bench: ParsableCommand {
    enum Part: String, ExpressibleByArgument, CaseIterable { case markers, phone, photos, chessboards, mjpeg, charuco }

    static let configuration = CommandConfiguration(
        abstract: "Time MarkerKit's detectors against OpenCV's on the same frames, with recall beside every time.",
        discussion: Bench.discussion
    )

    @Flag(help: "Fewer sizes and repeats: under a minute on 2 cores.") var quick = false
    @Option(help: ArgumentHelp("Write the figures as JSON.", valueName: "file")) var json: String?
    @Option(help: ArgumentHelp("Run only one part: \(Part.allCases.map(\.rawValue).joined(separator: ", ")).", valueName: "part")) var only: Part?
    @Option(help: ArgumentHelp("A folder of real photos with an expected.json (default: $MARKERKIT_REAL_PHOTOS, or the development set when run in the repository; none: part skipped).", valueName: "dir")) var photos: String?
    @Option(help: ArgumentHelp("A folder of real ChArUco photo sets with an expected.json (default: $MARKERKIT_CHARUCO_PHOTOS, or the development set when run in the repository; none: part skipped).", valueName: "dir")) var charucoPhotos: String?
    @Option(help: ArgumentHelp("A folder holding chessboard-* photo folders, each with an expected.json (default: $MARKERKIT_CHESSBOARD_PHOTOS, or Tests/Fixtures when run in the repository; none: part skipped).", valueName: "dir")) var chessboardPhotos: String?
    @Option(help: ArgumentHelp("A Python whose cv2 is the OpenCV to time beside Debian's on every marker frame and the real chessboard and ChArUco photos, e.g. the newest from pip (default: $MARKERKIT_PEER_PYTHON, or the one `make peers` installs when run in the repository; none: not timed).", valueName: "python")) var peerPython: String?
    @Option(help: ArgumentHelp("Only frames of these sizes, e.g. 640x480,1280x720 (markers part).", valueName: "sizes")) var sizes: String?
    @Option(help: ArgumentHelp("Runs per frame, 1-1000 (default 7, 3 with --quick).", valueName: "n")) var repeats: Int?
    @Flag(help: "Also print MarkerKit's time per detector stage for every marker case, and time OpenCV's first stage (its three threshold windows) alone: with --threads 1,2 --json, scripts/scaling-prediction predicts both at more threads.") var stages = false
    @Option(help: ArgumentHelp("Thread counts for the rendered marker cases and the --jobs folder rows, each given to both MarkerKit's workers and OpenCV's (cv::setNumThreads): e.g. 1,2,all (all: the cores this process may use).", valueName: "list")) var threads = "all"
    @Option(help: ArgumentHelp("The real video to include (default: ArUco's test video if present).", valueName: "file")) var video: String?
    @OptionGroup var dictionaryOption: DictionaryOption
    @OptionGroup var forceOption: ForceOption

    func run() throws {
        let jsonURL = json.map { URL(fileURLWithPath: $0) }
        if let jsonURL { try OutputFiles.checkDestination(jsonURL, force: forceOption.force) }
        let defaultVideo = "Tests/Fixtures/aruco-original-photos/single/video.avi"
        let videoURL = video.map { URL(fileURLWithPath: $0) }
            ?? (FileManager.default.fileExists(atPath: defaultVideo) ? URL(fileURLWithPath: defaultVideo) : nil)
        if let videoURL, !FileManager.default.fileExists(atPath: videoURL.path) {
            throw MarkerKitError.missingInput("cannot read video '\(videoURL.path)': no such file")
        }
        let defaultPhotos = ProcessInfo.processInfo.environment["MARKERKIT_REAL_PHOTOS"] ?? "../shared/data/real-photos"
        let photoFolder = photos.map { URL(fileURLWithPath: $0) }
            ?? (FileManager.default.fileExists(atPath: defaultPhotos + "/expected.json") ? URL(fileURLWithPath: defaultPhotos) : nil)
        let photoBench = photoFolder.map { RealPhotoBenchmark(folder: $0, repeats: quick ? 1 : 3) }
        if only == nil || only == .photos, let photoBench { _ = try photoBench.expected() }
        let defaultCharuco = ProcessInfo.processInfo.environment["MARKERKIT_CHARUCO_PHOTOS"] ?? "../shared/data/charuco-real"
        let charucoFolder = charucoPhotos.map { URL(fileURLWithPath: $0) }
            ?? (FileManager.default.fileExists(atPath: defaultCharuco + "/expected.json") ? URL(fileURLWithPath: defaultCharuco) : nil)
        // The parts the newest OpenCV is timed in: rendered markers, phone photos, chessboards, ChArUco photos.
        let timesPeer = only.map { ![.mjpeg, .photos].contains($0) } ?? true
        let peer = try (timesPeer ? PythonOpenCVPeer.interpreter(explicit: peerPython) : nil).map { python in try naming("--peer-python: ") { try PythonOpenCVPeer(python: python) } }
        let charucoBench = try (only == nil || only == .charuco ? charucoFolder : nil)
            .map { CharucoPhotoBenchmark(photos: try CharucoPhotoSets(folder: $0), repeats: quick ? 1 : 3, peer: peer) }
        let defaultChessboards = ProcessInfo.processInfo.environment["MARKERKIT_CHESSBOARD_PHOTOS"] ?? "Tests/Fixtures"
        let chessboardFolder = chessboardPhotos.map { URL(fileURLWithPath: $0) }
            ?? (FileManager.default.fileExists(atPath: defaultChessboards) ? URL(fileURLWithPath: defaultChessboards) : nil)
        let chessboardBench = try (only == nil || only == .chessboards ? chessboardFolder : nil).map { folder in
            let sets = try ChessboardPhotoSet.all(in: folder)
            if sets.isEmpty, chessboardPhotos != nil {
                throw MarkerKitError.missingInput("no chessboard-* folder with an expected.json in '\(folder.path)'")
            }
            return ChessboardPhotoBenchmark(sets: sets, repeats: quick ? 1 : 3, peer: peer)
        }
        var benchmark = DetectorBenchmark(quick: quick)
        benchmark.includeMarkers = only == nil || only == .markers
        benchmark.includeChessboards = only == nil || only == .chessboards
        benchmark.includePhone = only == nil || only == .phone
        benchmark.includeMJPEG = only == nil || only == .mjpeg
        benchmark.stagesForEveryCase = stages
        benchmark.threadCounts = try naming("--threads: ") { try InputRange.threadCounts(threads, cores: WorkerPool.cores) }
        benchmark.dictionary = dictionaryOption.dictionary
        if let repeats { benchmark.repeatsOverride = try InputRange.check(repeats, in: RenderLimits.benchmarkRepeats, "--repeats") }
        benchmark.peers = [.aprilTag3(dictionary: dictionaryOption.dictionary)].compactMap { $0 }
        benchmark.opencvPeer = peer
        if let sizes {
            benchmark.onlySizes = try naming("--sizes: ") {
                try sizes.split(separator: ",").map { text in
                    let size = try ImageSize.parse(String(text))
                    return (size.width, size.height)
                }
            }
        }
        var report = try benchmark.run(video: videoURL) { status("bench: \($0)") }
        if only == nil || only == .photos, let photoBench {
            report.markerCases += try photoBench.run { status("bench: \($0)") }
        }
        if let chessboardBench { report.chessboardPhotoCases = try chessboardBench.run { status("bench: \($0)") } }
        if let charucoBench { report.charucoCases = try charucoBench.run { status("bench: \($0)") } }
        endStatus()
        print(report.table)
        if timesPeer, peer == nil { note("the newest OpenCV was not timed: `make peers`, or --peer-python PYTHON") }
        if let jsonURL { try writeJSON(report, to: jsonURL) }
    }
}

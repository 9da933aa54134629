import ArgumentParser
import Foundation
import AprilTagPeer
import MarkerKit

struct Bench: ParsableCommand {
    enum Part: String, ExpressibleByArgument, CaseIterable { case markers, phone, photos, chessboards, mjpeg, charuco }

    static let configuration = CommandConfiguration(
        abstract: "Time MarkerKit's detectors against OpenCV's on the same frames, with recall beside every time.",
        discussion: """
        Rendered frames at 640x480, 1280x720, 1920x1080 and 3840x2160 with 0, 1, 10 and 50 markers (sides \
        from 20 px), plus ArUco's test video: MarkerKit's detector, OpenCV's detectMarkers with default \
        parameters and in ArUco 3 mode, and one threshold pass as the floor. Real photos (a folder with an \
        expected.json naming each photo's dictionary and IDs: --photos or $MARKERKIT_REAL_PHOTOS; in the \
        MarkerKit repository, its development photo set), each at full resolution, with recall against the expected IDs. Rendered phone photos \
        (--profile phone of render and verify): 3024x4032 portrait, 4032x3024 landscape, and 3024x4032 with \
        print beside every marker, 4 photos each (1 with --quick). Chessboards at 1920x1080 with \
        and without a board in view: MarkerKit's finder against findChessboardCorners (default flags, \
        FAST_CHECK) and findChessboardCornersSB. MJPEG camera frames at 640x480 and 1920x1080 (10 markers, \
        made JPEGs by imencode): MarkerKit's decoder and detector as track runs them against imdecode and \
        detectMarkers, and the decoders alone. --dictionary sets the rendered frames' and phone photos' \
        markers and what every detector reads; the video (DICT_ARUCO_ORIGINAL) and the real photos (each \
        as its expected.json says) keep their own. Real ChArUco photos (a folder of sets with an \
        expected.json: --charuco-photos or $MARKERKIT_CHARUCO_PHOTOS; in the repository, its set): board \
        corners and time per photo against OpenCV 4.6's detectMarkers + interpolateCornersCharuco and, with \
        --peer-python (or after `make peers`), the newest OpenCV's CharucoDetector as pip ships it, timed in \
        the same run; without one, that detector's count from the file. Real chessboard photos (folders named chessboard-* \
        with an expected.json, under --chessboard-photos or $MARKERKIT_CHESSBOARD_PHOTOS; in the repository, \
        Tests/Fixtures), part of chessboards: what calibrate and detect --board do per photo (find + fit) \
        against findChessboardCorners + cornerSubPix, boards found beside, and the same pipeline in the \
        newest OpenCV with --peer-python (or after `make peers`). The photo rows run one thread \
        each. --threads runs the rendered marker cases once per \
        thread count, MarkerKit's workers and OpenCV's (cv::setNumThreads) given the same, with a folder row \
        each: 8 frames detected as detect --jobs N runs them, frames a second. Times come true only from an optimised build (make \
        install, or swift build -c release).

        Examples:
          markerkit bench --quick
          markerkit bench --json bench.json
          markerkit bench --only markers --dictionary 5x5_100
          markerkit bench --only markers --threads 1,2,all --sizes 640x480,1280x720
        """
    )

    @Flag(help: "Fewer sizes and repeats: under a minute on 2 cores.") var quick = false
    @Option(help: ArgumentHelp("Write the figures as JSON.", valueName: "file")) var json: String?
    @Option(help: ArgumentHelp("Run only one part: \(Part.allCases.map(\.rawValue).joined(separator: ", ")).", valueName: "part")) var only: Part?
    @Option(help: ArgumentHelp("A folder of real photos with an expected.json (default: $MARKERKIT_REAL_PHOTOS, or the development set when run in the repository; none: part skipped).", valueName: "dir")) var photos: String?
    @Option(help: ArgumentHelp("A folder of real ChArUco photo sets with an expected.json (default: $MARKERKIT_CHARUCO_PHOTOS, or the development set when run in the repository; none: part skipped).", valueName: "dir")) var charucoPhotos: String?
    @Option(help: ArgumentHelp("A folder holding chessboard-* photo folders, each with an expected.json (default: $MARKERKIT_CHESSBOARD_PHOTOS, or Tests/Fixtures when run in the repository; none: part skipped).", valueName: "dir")) var chessboardPhotos: String?
    @Option(help: ArgumentHelp("A Python whose cv2 is the OpenCV to time beside Debian's on the real chessboard and ChArUco photos, e.g. the newest from pip (default: $MARKERKIT_PEER_PYTHON, or the one `make peers` installs when run in the repository; none: not timed).", valueName: "python")) var peerPython: String?
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
        let peer = try (only.map { [.charuco, .chessboards].contains($0) } ?? true ? PythonOpenCVPeer.interpreter(explicit: peerPython) : nil).map { python in try naming("--peer-python: ") { try PythonOpenCVPeer(python: python) } }
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
        if peer == nil, chessboardBench != nil || charucoBench != nil { note("the newest OpenCV was not timed: `make peers`, or --peer-python PYTHON") }
        if let jsonURL { try writeJSON(report, to: jsonURL) }
    }
}

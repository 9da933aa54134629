import CVBridge
import Foundation

/// Times detectors on the same frames in the same run: MarkerKit's against OpenCV's aruco (default, and
/// ArUco 3 mode) with one threshold pass as the floor; MarkerKit's chessboard finder against OpenCV's;
/// MJPEG camera frames decoded and searched, MarkerKit's way against OpenCV's (`MJPEGBenchmark.swift`).
/// Every time is the median of repeated runs; recall stands beside it so speed is never bought with misses.
public struct DetectorBenchmark {
    public struct Case: Codable, Sendable {
        public let name: String
        public let width: Int
        public let height: Int
        public let markers: Int
        /// Median milliseconds per frame, by contender.
        public let milliseconds: [String: Double]
        /// Markers found with the right ID at the right place over markers present (nil without markers).
        public let recall: [String: Double]
        /// Recall of markers of 20 px side or more.
        public let recall20: [String: Double]
        /// MarkerKit's detector stage by stage on this case's frames (with `stagesForEveryCase`).
        public var stages: String? = nil
        /// The threads both detectors were given (the worker pool's and OpenCV's), with `threadCounts`.
        public var threads: Int? = nil
    }

    public struct ChessboardCase: Codable, Sendable {
        public let name: String
        public let boardInView: Bool
        public let milliseconds: [String: Double]
        public let detectionRate: [String: Double]
        /// Corner RMSE against the render's truth (px), when the board was found.
        public let cornerRMSE: [String: Double]
    }

    public struct Report: Codable, Sendable {
        /// MarkerKit's detector stage by stage on the 1920x1080 frame with 10 markers.
        public var stages: String = ""
        public let quick: Bool
        public let repeats: Int
        /// The rendered cases' dictionary (OpenCV's name); real photos name theirs in their expected.json.
        public var dictionary: String = MarkerDictionary.arucoOriginal.name
        public var markerCases: [Case]
        public var chessboardCases: [ChessboardCase]
        public var mjpegCases: [MJPEGCase] = []
        public var jobsCases: [JobsCase] = []
        public var charucoCases: [CharucoPhotoBenchmark.Case] = []
        public var chessboardPhotoCases: [ChessboardPhotoBenchmark.Case] = []

        public var table: String {
            func f(_ v: Double?) -> String { v.map { String(format: "%8.2f", $0) } ?? "       -" }
            func r(_ v: Double?) -> String { v.map { String(format: "%5.1f%%", 100 * $0) } ?? "    - " }
            var lines: [String] = []
            if !markerCases.isEmpty { lines += ["marker detection (rendered cases: \(dictionary)): median ms per frame (ratio to markerkit) and recall", ""] }
            if !markerCases.isEmpty { lines.append("case".padding(toLength: 52, withPad: " ", startingAt: 0) + "markerkit        opencv                aruco3                threshold     recall mk / cv / a3") }
            for c in markerCases {
                let ours = c.milliseconds["markerkit"] ?? .nan
                func cell(_ name: String) -> String {
                    guard let v = c.milliseconds[name] else { return "     -              " }
                    return f(v) + String(format: " (%5.2fx)   ", v / ours)
                }
                lines.append(c.name.padding(toLength: 50, withPad: " ", startingAt: 0) + f(ours) + "      " + cell("opencv") + cell("aruco3")
                    + f(c.milliseconds["threshold"]) + "     " + [r(c.recall["markerkit"]), r(c.recall["opencv"]), r(c.recall["aruco3"])].joined(separator: " "))
                // Peers (AprilTag 3, the newest OpenCV) on a line of their own below.
                for name in c.milliseconds.keys.sorted() where !["markerkit", "opencv", "aruco3", "threshold"].contains(name) {
                    lines.append("  " + name.padding(toLength: 48, withPad: " ", startingAt: 0) + "      -      " + cell(name) + "                    "
                        + "                    recall " + r(c.recall[name]))
                }
            }
            if !jobsCases.isEmpty { lines += ["", "folders detected as several jobs (one workspace each): frames a second (ratio to opencv) and recall"] }
            for c in jobsCases {
                let ours = c.framesPerSecond["markerkit"] ?? .nan, theirs = c.framesPerSecond["opencv"] ?? .nan
                lines.append(c.name.padding(toLength: 60, withPad: " ", startingAt: 0) + String(format: "markerkit %7.1f  opencv %7.1f (%5.2fx)   ", ours, theirs, ours / theirs)
                    + [r(c.recall["markerkit"]), r(c.recall["opencv"])].joined(separator: " / "))
            }
            if !stages.isEmpty { lines += ["", "markerkit at 1920x1080 with 10 markers, " + stages] }
            for c in markerCases { if let s = c.stages { lines += ["", "markerkit at \(c.name), " + s] } }
            if !chessboardCases.isEmpty { lines += ["", "chessboard detection: median ms per frame, detection rate, corner RMSE px"] }
            for c in chessboardCases {
                lines.append("  \(c.name)")
                for name in ["markerkit", "opencv", "opencv-fast", "opencv-sb"] {
                    guard let ms = c.milliseconds[name] else { continue }
                    let ratio = (c.milliseconds["markerkit"]).map { String(format: "(%5.2fx)", ms / $0) } ?? ""
                    lines.append("    " + name.padding(toLength: 12, withPad: " ", startingAt: 0) + f(ms) + " " + ratio + "  found " + r(c.detectionRate[name])
                        + "  RMSE " + (c.cornerRMSE[name].map { String(format: "%.3f", $0) } ?? "-"))
                }
            }
            return (lines + DetectorBenchmark.mjpegTable(mjpegCases)).joined(separator: "\n") + ChessboardPhotoBenchmark.table(chessboardPhotoCases)
                + CharucoPhotoBenchmark.table(charucoCases)
        }
    }

    public let quick: Bool
    public var repeats: Int { repeatsOverride ?? (quick ? 3 : 7) }
    /// Runs per frame instead of the default 7 (3 with `quick`).
    public var repeatsOverride: Int?

    public var includeMarkers = true
    /// Run the rendered marker cases and the folder rows once per thread count, the worker pool and OpenCV
    /// both set to it (empty: as they are). The setting before the run is restored after it.
    public var threadCounts: [Int] = []
    /// Only these frame sizes (nil: all of the run's sizes).
    public var onlySizes: [(Int, Int)]? = nil
    /// Also time MarkerKit's stages on every marker case (a separate run after the timed ones).
    public var stagesForEveryCase = false
    public var includeChessboards = true
    /// Phone photos (`BenchmarkScenes.PhoneCase`): 4 of each case, 1 with `quick`.
    public var includePhone = true
    /// MJPEG frames at 640x480 and 1920x1080, decoded and searched: 3 frames of each size, 1 with `quick`.
    public var includeMJPEG = true
    /// The dictionary of the rendered cases (marker frames and phone photos), read by every contender.
    /// The video keeps its own (ArUco's test video is DICT_ARUCO_ORIGINAL).
    public var dictionary: MarkerDictionary = .arucoOriginal
    /// Other detectors of `dictionary` timed beside OpenCV on the rendered frames and phone photos (AprilTag
    /// 3 for the AprilTag families), each on a line of its own; not on the video (DICT_ARUCO_ORIGINAL).
    public var peers: [MarkerVerification.Contender] = []
    /// Another OpenCV (the newest, as pip ships it) timed on every marker case's frames, written to disk as
    /// PNG for it, with the same thread count; its row is named `opencv-VERSION`.
    public var opencvPeer: PythonOpenCVPeer? = nil

    public init(quick: Bool) { self.quick = quick }

    /// The detector's buffers, kept from frame to frame as `track` keeps them.
    let workspace = DetectorWorkspace()

    func contenders(_ dictionary: MarkerDictionary) -> [(String, (GrayImage) throws -> [MarkerDetection])] { [
        ("markerkit", { [workspace] in
            var none: StageTimings? = nil
            return try MarkerDetector(dictionary: dictionary).detect(in: $0, workspace: workspace, timings: &none)
        }),
        ("opencv", { try OpenCVArucoDetector(dictionary: dictionary).detect(in: $0) }),
        ("aruco3", { try OpenCVArucoDetector(aruco3: true, dictionary: dictionary).detect(in: $0) }),
    ] + (dictionary == self.dictionary ? peers.map { ($0.name, $0.detect) } : []) }

    /// Every case asked for, in order: rendered marker scenes, the video, phone photos, MJPEG frames,
    /// chessboards.
    public func run(video: URL?, progress: (String) -> Void = { _ in }) throws -> Report {
        var report = Report(quick: quick, repeats: repeats, dictionary: dictionary.name, markerCases: [], chessboardCases: [])
        let renderer = SceneRenderer()
        let setting = WorkerPool.threads
        defer { WorkerPool.setThreads(setting) }
        let folder = includeMarkers && !threadCounts.isEmpty ? try jobsFrames(renderer: renderer) : nil
        for threads in threadCounts.isEmpty ? [nil] : threadCounts.map(Optional.some) {
            if let threads { WorkerPool.setThreads(threads) }
            guard includeMarkers else { break }
            try runRenderedMarkers(into: &report, renderer: renderer, threads: threads, progress: progress)
            if let threads, let folder {
                progress("folder, \(counted(threads, "job"))")
                report.jobsCases.append(try jobsCase(images: folder.images, truths: folder.truths, jobs: threads))
            }
        }
        WorkerPool.setThreads(setting)
        if includeMarkers, let video {
            progress("video")
            report.markerCases.append(try videoCase(video))
        }
        if includePhone {
            for phoneCase in BenchmarkScenes.PhoneCase.allCases {
                let scenes = try BenchmarkScenes.phone(phoneCase, count: quick ? 1 : 4, dictionary: dictionary)
                let name = "\(phoneCase.rawValue) (\(counted(scenes.count, "photo")))"
                progress(name)
                report.markerCases.append(try measure(name: name, images: try scenes.map { try renderer.render($0.scene) },
                                                      truths: scenes.map { $0.markers.map(\.truth) }, dictionary: dictionary))
            }
        }
        for (w, h) in includeMJPEG ? Self.mjpegSizes : [] {
            progress("MJPEG \(w)x\(h)")
            report.mjpegCases.append(try mjpegCase(width: w, height: h, frames: quick ? 1 : 3, renderer: renderer))
        }
        if includeChessboards { report.chessboardCases += try chessboardCases(renderer: renderer, progress: progress) }
        return report
    }

    /// Rendered frames of every size with 0 to 50 markers; the stage timings of 1920x1080 with 10.
    private func runRenderedMarkers(into report: inout Report, renderer: SceneRenderer, threads: Int?, progress: (String) -> Void) throws {
        let sizes: [(Int, Int)] = onlySizes ?? (quick ? [(640, 480), (1920, 1080)] : [(640, 480), (1280, 720), (1920, 1080), (3840, 2160)])
        for (w, h) in sizes {
            for count in quick ? [0, 10] : [0, 1, 10, 50] {
                let name = "\(w)x\(h), \(counted(count, "marker"))" + (threads.map { ", \(counted($0, "thread"))" } ?? "")
                progress(name)
                let scene = try BenchmarkScenes.markers(count: count, width: w, height: h, seed: UInt64(w * 31 + count), dictionary: dictionary)
                let image = try renderer.render(scene)
                let truth = try SceneTruth.markers(of: scene)
                var measured = try measure(name: name, images: [image], truths: [truth], dictionary: dictionary)
                measured.threads = threads
                report.markerCases.append(measured)
                if w == 1920 && count == 10 && threads == threadCounts.last {
                    var timings: StageTimings? = StageTimings()
                    for _ in 0..<repeats { _ = try MarkerDetector(dictionary: dictionary).detect(in: image, workspace: workspace, timings: &timings) }
                    report.stages = timings!.table
                }
            }
        }
        try runClutteredMarkers(into: &report, renderer: renderer, threads: threads, progress: progress)
    }

    /// Webcam-size frames of markers on cards among clutter (`ClutterSceneSampler`): 640x480 and 1280x720
    /// (those of `onlySizes`), 10 and 50 markers (10 with `quick`), 3 frames a case (1 with `quick`).
    private func runClutteredMarkers(into report: inout Report, renderer: SceneRenderer, threads: Int?, progress: (String) -> Void) throws {
        let sizes = [(640, 480), (1280, 720)].filter { size in onlySizes.map { $0.contains { $0 == size } } ?? true }
        for (w, h) in sizes {
            for count in quick ? [10] : [10, 50] {
                let frames = quick ? 1 : 3
                let name = "\(w)x\(h) clutter, \(counted(count, "marker")), \(counted(frames, "frame"))" + (threads.map { ", \(counted($0, "thread"))" } ?? "")
                progress(name)
                let scenes = try BenchmarkScenes.cluttered(count: count, width: w, height: h, frames: frames, dictionary: dictionary)
                var measured = try measure(name: name, images: try scenes.map { try renderer.render($0.scene) }, truths: scenes.map { $0.markers.map(\.truth) },
                                           dictionary: dictionary, runsPerImage: repeats)
                measured.threads = threads
                report.markerCases.append(measured)
            }
        }
    }

    /// A real video's frames (145, 30 when quick), DICT_ARUCO_ORIGINAL.
    private func videoCase(_ video: URL) throws -> Case {
        let source = try VideoFileSource(url: video)
        var images: [GrayImage] = []
        var frame = SourcedFrame.empty
        while images.count < (quick ? 30 : 145), try source.next(into: &frame) { images.append(try Grayscale.image(from: frame.frame)) }
        return try measure(name: "\(video.lastPathComponent) (\(images.count) frames)", images: images, truths: nil, dictionary: .arucoOriginal)
    }

    /// Views as a user holds a board for calibration (fills 35-75% of the width, tilted 10-45 degrees), and
    /// frames of a room with markers but no board.
    private func chessboardCases(renderer: SceneRenderer, progress: (String) -> Void) throws -> [ChessboardCase] {
        let views = quick ? 6 : 20
        progress("chessboard")
        var verification = try CalibrationVerification(camera: BuiltInCamera.webcam(width: 1920, height: 1080), width: 1920,
                                                       height: 1080, views: views, seed: 3)
        verification.noise = 2
        verification.blur = 0.5
        var boards: [GrayImage] = [], truths: [[Point2]] = []
        for var scene in try verification.viewScenes() {
            scene.degradations.texturedBackground = true
            scene.degradations.gradient = 0.2
            boards.append(try renderer.render(scene))
            truths.append(try SceneTruth.chessboardCorners(of: scene)[0])
        }
        let inView = try measureChessboard(name: "1920x1080, board in view (\(views) views)", images: boards, truths: truths)
        progress("no chessboard")
        let empty = try (0..<(quick ? 3 : 10)).map { try renderer.render(BenchmarkScenes.markers(count: 10, width: 1920, height: 1080, seed: UInt64(90 + $0))) }
        return [inView, try measureChessboard(name: "1920x1080, board not in view (\(empty.count) frames)", images: empty, truths: nil)]
    }

    func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }

    /// Whether `detections` hold `marker`: its ID within half its side of where it is.
    static func finds(_ detections: [MarkerDetection], _ marker: SceneTruth.Marker) -> Bool {
        finds(detections.map { ($0.id, $0.center) }, marker)
    }

    static func finds(_ detections: [(id: Int, center: Point2)], _ marker: SceneTruth.Marker) -> Bool {
        let centre = Point2(x: marker.corners.map(\.x).reduce(0, +) / 4, y: marker.corners.map(\.y).reduce(0, +) / 4)
        return detections.contains { $0.id == marker.id && $0.center.distance(to: centre) < marker.sidePixels / 2 }
    }

    func time(_ body: () throws -> Void) rethrows -> Double {
        let clock = ContinuousClock()
        let start = clock.now
        try body()
        let d = clock.now - start
        return (Double(d.components.seconds) + Double(d.components.attoseconds) * 1e-18) * 1000
    }

    /// Every contender on `images` (`runsPerImage` runs each; default `repeats` for one image, else one):
    /// the median time over all runs and recall against `truths`.
    func measure(name: String, images: [GrayImage], truths: [[SceneTruth.Marker]]?, dictionary: MarkerDictionary,
                 runsPerImage: Int? = nil) throws -> Case {
        var milliseconds: [String: Double] = [:], recall: [String: Double] = [:], recall20: [String: Double] = [:]
        let runs = runsPerImage ?? (images.count > 1 ? 1 : repeats)
        func score(_ contender: String, times: [Double], found detections: [[(id: Int, center: Point2)]]) {
            var found = 0, present = 0, found20 = 0, present20 = 0
            for (index, truth) in (truths ?? []).enumerated() {
                for marker in truth {
                    let hit = Self.finds(detections[index], marker)
                    present += 1
                    found += hit ? 1 : 0
                    if marker.sidePixels >= 20 { present20 += 1; found20 += hit ? 1 : 0 }
                }
            }
            milliseconds[contender] = median(times)
            if present > 0 { recall[contender] = Double(found) / Double(present) }
            if present20 > 0 { recall20[contender] = Double(found20) / Double(present20) }
        }
        for (contender, detect) in contenders(dictionary) {
            var times: [Double] = [], found: [[(id: Int, center: Point2)]] = []
            for image in images {
                var detections: [MarkerDetection] = []
                for _ in 0..<runs { times.append(try time { detections = try detect(image) }) }
                found.append(detections.map { ($0.id, $0.center) })
            }
            score(contender, times: times, found: found)
        }
        if let opencvPeer {
            let frames = try PeerFrames(images)
            let answers = try opencvPeer.markers(frames.urls, dictionary: dictionary, repeats: runs, threads: WorkerPool.threads)
            withExtendedLifetime(frames) {}
            score("opencv-\(opencvPeer.version)", times: answers.flatMap(\.times), found: answers.map(\.detections))
        }
        var binary = [UInt8](repeating: 0, count: images[0].pixels.count)
        milliseconds["threshold"] = median(try (0..<repeats).map { _ in
            try time {
                let status = images[0].pixels.withUnsafeBufferPointer { gray in
                    binary.withUnsafeMutableBufferPointer { cvb_threshold_pass(gray.baseAddress, Int32(images[0].width), Int32(images[0].height), Int32(images[0].width), $0.baseAddress) }
                }
                try Bridge.check(status)
            }
        })
        if stagesForEveryCase {
            // OpenCV's first stage alone (its three threshold windows, which detectMarkers runs as one job
            // each) and each window's share, for the thread-scaling model (scripts/scaling-prediction).
            var windows: [[Double]] = [[], [], []], stage: [Double] = []
            for _ in 0..<repeats {
                var each = [Double](repeating: 0, count: 3)
                stage.append(try time {
                    let status = images[0].pixels.withUnsafeBufferPointer {
                        cvb_aruco_candidate_stage($0.baseAddress, Int32(images[0].width), Int32(images[0].height), Int32(images[0].width), &each)
                    }
                    try Bridge.check(status)
                })
                for k in 0..<3 { windows[k].append(each[k]) }
            }
            milliseconds["opencv candidate stage"] = median(stage)
            for k in 0..<3 { milliseconds["opencv window \(k + 1)"] = median(windows[k]) }
        }
        var result = Case(name: name, width: images[0].width, height: images[0].height, markers: truths?.first?.count ?? 0,
                          milliseconds: milliseconds, recall: recall, recall20: recall20)
        if stagesForEveryCase {
            // Each stage's median over every run on every frame (a median per stage, not a sum, so that one
            // run slowed by the machine's other work does not show as a slow stage).
            var names: [String] = [], runs: [[String: Double]] = []
            for image in images {
                for _ in 0..<(images.count > 1 ? 1 : repeats) {
                    var timings: StageTimings? = StageTimings()
                    _ = try MarkerDetector(dictionary: dictionary).detect(in: image, workspace: workspace, timings: &timings)
                    var run: [String: Double] = [:]
                    for stage in timings!.stages {
                        if !names.contains(stage.name) { names.append(stage.name) }
                        run[stage.name] = stage.seconds * 1000
                    }
                    runs.append(run)
                }
            }
            // The fastest run beside the median: on a machine busy with other work it is the steadier figure.
            func figures(_ values: [Double]) -> String { String(format: "%.3f (%.3f)", median(values), values.min() ?? 0) }
            let cells = names.map { name in "\(name) " + figures(runs.map { $0[name] ?? 0 }) }
            let total = figures(runs.map { $0.values.reduce(0, +) })
            result.stages = "median (fastest) ms per stage over \(runs.count) runs: " + cells.joined(separator: ", ") + "; total \(total)"
        }
        return result
    }

    func measureChessboard(name: String, images: [GrayImage], truths: [[Point2]]?) throws -> ChessboardCase {
        let contenders: [(String, (GrayImage) throws -> [Point2]?)] = [
            ("markerkit", { try FastChessboardFinder(innerColumns: 9, innerRows: 6).find(in: $0) }),
            ("opencv", { try ChessboardDetector(innerColumns: 9, innerRows: 6, method: .openCVDefault).detect(in: $0) }),
            ("opencv-fast", { try ChessboardDetector(innerColumns: 9, innerRows: 6, method: .openCVFastCheck).detect(in: $0) }),
            ("opencv-sb", { try ChessboardDetector(innerColumns: 9, innerRows: 6, method: .sectorBased).detect(in: $0) }),
        ]
        var milliseconds: [String: Double] = [:], rate: [String: Double] = [:], rmse: [String: Double] = [:]
        // Runs of 100 ms or more (SB, any search of a frame without a board) vary little against
        // their length: one run per frame there, repeats only for the fast runs.
        let runs = truths == nil ? 1 : repeats
        for (name, find) in contenders {
            var times: [Double] = [], found = 0, squares = 0.0, count = 0
            for (index, image) in images.enumerated() {
                var corners: [Point2]?
                for run in 0..<runs {
                    times.append(try time { corners = try find(image) })
                    if run == 0, times.last! > 100 { break }
                }
                guard let corners else { continue }
                found += 1
                guard let truth = truths?[index] else { continue }
                // A 9x6 board reads the same turned 180 degrees: detectors may start from either end.
                squares += [corners, corners.reversed()].map { order in
                    zip(order, truth).map { $0.distance(to: $1) * $0.distance(to: $1) }.reduce(0, +)
                }.min()!
                count += truth.count
            }
            milliseconds[name] = median(times)
            rate[name] = Double(found) / Double(images.count)
            if count > 0 { rmse[name] = (squares / Double(count)).squareRoot() }
        }
        return ChessboardCase(name: name, boardInView: truths != nil, milliseconds: milliseconds, detectionRate: rate, cornerRMSE: rmse)
    }
}

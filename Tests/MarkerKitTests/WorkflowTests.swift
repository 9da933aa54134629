import Foundation
import Testing
@testable import MarkerKit

/// The workflows behind `capture`, `calibrate` and `render`, driven as another program would drive them.
@Suite struct WorkflowTests {
    static let photo = Fixtures.root.appendingPathComponent("aruco-original-photos/single/image-test.png")
    static let boards = Fixtures.root.appendingPathComponent("chessboard-opencv-9x6")

    func folder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("workflow-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: false)
        return url
    }

    func feed(_ count: Int, in dir: URL) throws -> FrameFeed {
        let images = dir.appendingPathComponent("frames")
        try FileManager.default.createDirectory(at: images, withIntermediateDirectories: false)
        let files = try (0..<count).map { i -> URL in
            let url = images.appendingPathComponent("f\(i).png")
            try FileManager.default.copyItem(at: Self.photo, to: url)
            return url
        }
        return FrameFeed(source: ImageFileSource(files: files), isCamera: false)
    }

    @Test func captureSessionSavesEveryFrameOnATimerOfZero() throws {
        let dir = try folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("views")
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: false)
        var session = try CaptureSession(directory: out, source: "frames", board: nil, count: 5, trigger: .every(0))
        var updates: [(saved: Int, saving: Bool)] = []
        let outcome = try session.run(feed: try feed(3, in: dir), onUpdate: { updates.append(($0.saved, $0.saving)) })
        // The feed ends after three frames: three saved, one update each, before its save.
        #expect(updates.map(\.saved) == [0, 1, 2] && updates.allSatisfy(\.saving))
        #expect(outcome.saved.map(\.lastPathComponent) == ["view_000.png", "view_001.png", "view_002.png"])
        let (log, images) = try CaptureLog.read(from: out.appendingPathComponent("capture.json"))
        #expect(log.source == "frames" && images == outcome.saved && log.board == nil)
        #expect(try Frame(contentsOf: images[2], format: .gray8).width == 640)
        // A second run into the same folder is refused unless forced.
        #expect(throws: MarkerKitError.self) { try session.checkDestination(force: false) }
        try session.checkDestination(force: true)
    }

    @Test func captureSessionSavesWhatTheCallerAsksForAndStopsWhenTold() throws {
        let dir = try folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        var session = try CaptureSession(directory: dir, source: "keys", board: nil, count: 10, trigger: .onRequest)
        var frame = 0
        var stop = false
        let outcome = try session.run(feed: try feed(6, in: dir), shouldStop: { stop }, request: {
            frame += 1
            return frame % 2 == 0
        }, onUpdate: { update in
            if update.saved == 1 && update.saving { stop = true }
        })
        // Frames 2 and 4 saved; told to stop while the second save is under way, it reads no frame after it.
        #expect(outcome.saved.count == 2 && frame == 4)
        #expect(session.log.images.map(\.file) == ["view_000.png", "view_001.png"])
    }

    /// serve's "keep view": the assistant keeps a frame on request although it was not held still or new
    /// (image files carry no times, so nothing is ever held for half a second), and only frames with the board.
    @Test func theAssistantKeepsAViewWhenAsked() throws {
        let dir = try folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let board = Self.boards.appendingPathComponent("left01.jpg")
        let files = try (0..<5).map { i -> URL in
            let url = dir.appendingPathComponent("f\(i).\(i == 3 ? "png" : "jpg")")
            try FileManager.default.copyItem(at: i == 3 ? Self.photo : board, to: url)
            return url
        }
        let target = try Checkerboard(innerColumns: 9, innerRows: 6, square: .mm(25))
        for asked in [Set<Int>(), [1, 2, 3]] {
            let out = dir.appendingPathComponent("views-\(asked.count)")
            try FileManager.default.createDirectory(at: out, withIntermediateDirectories: false)
            var session = try CaptureSession(directory: out, source: "frames", board: target, count: 10, trigger: .assistant)
            var frame = -1
            var verdicts: [CaptureAssistant.Verdict?] = []
            let outcome = try session.run(feed: FrameFeed(source: ImageFileSource(files: files), isCamera: false), request: {
                frame += 1
                return asked.contains(frame)
            }, onUpdate: { verdicts.append($0.verdict) })
            // Unasked: held for no time, never kept. Asked on frames 1 and 2 (the same board again) and 3
            // (no board): 1 and 2 kept, 3 not.
            #expect(outcome.saved.count == (asked.isEmpty ? 0 : 2), "\(verdicts)")
            #expect(verdicts[3] == .noBoard)
        }
    }

    @Test func theAssistantNeedsABoard() {
        #expect(throws: MarkerKitError.self) {
            _ = try CaptureSession(directory: URL(fileURLWithPath: "/tmp"), source: "x", board: nil, count: 3, trigger: .assistant)
        }
    }

    @Test func calibrationJobGivesWhatTheCalibratorGives() throws {
        let inputs = try CalibrationJob.Inputs.from(paths: [Self.boards.path])
        let board = try Checkerboard(innerColumns: 9, innerRows: 6, square: .mm(1))
        var job = CalibrationJob(board: board, images: inputs.images, name: "left")
        job.jobs = 2
        var calls: [Int] = []
        var checkpoints = 0
        let result = try job.run(progress: { done, total, _ in
            #expect(total == inputs.images.count)
            calls.append(done)
        }, checkpoint: { checkpoints += 1 })
        #expect(calls == Array(0...inputs.images.count) && checkpoints == 1, "\(calls)")
        // As `markerkit calibrate` reports: 13 of 13 images, RMS 0.16 (its corners fitted; cornerSubPix's gave 0.19).
        #expect(inputs.log == nil && result.used.count == 13 && inputs.images.count == 13)
        let rms = try #require(result.calibration.provenance?.rms)
        #expect(String(format: "%.2f", rms) == "0.16")
        let calibrator = Calibrator(board: board)
        let (views, width, height) = try calibrator.findBoards(in: inputs.images)
        let direct = try calibrator.calibrate(views: views, width: width, height: height, name: "left")
        #expect(direct.calibration.fx == result.calibration.fx && direct.calibration.distortion == result.calibration.distortion)
    }

    @Test func calibrationInputsComeFromACaptureLog() throws {
        let dir = try folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        #expect(throws: MarkerKitError.self) { try CalibrationJob.Inputs.from(paths: [dir.path]) } // no images, no log
        var log = CaptureLog(source: "cam", board: try Checkerboard(innerColumns: 9, innerRows: 6, square: .mm(25)))
        log.images = [CaptureLog.Entry(file: "view_000.png", time: 0, parameters: nil, sharpness: nil)]
        try log.encoded().write(to: dir.appendingPathComponent("capture.json"))
        let inputs = try CalibrationJob.Inputs.from(paths: [dir.path])
        #expect(inputs.images == [dir.appendingPathComponent("view_000.png")])
        #expect(try inputs.log?.checkerboard()?.square == .mm(25))
    }

    @Test func renderSetWritesScenesAndTruthAndTakesThemBackOnFailure() throws {
        let dir = try folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        var set = RenderSet(profile: .camera(BuiltInCamera.webcam(width: 320, height: 240)), seed: 3, count: 2)
        set.start = 1
        var progress: [Int] = []
        let outcome = try set.write(into: dir) { done, total, name in
            #expect(total == 2)
            progress.append(done)
        }
        #expect(progress == [1, 2] && outcome.sizes == ["320x240"])
        #expect(outcome.files.map(\.lastPathComponent) == ["scene_001.png", "scene_002.png", "truth.json"])
        #expect(try RenderTruthFile.read(from: dir.appendingPathComponent("truth.json")).scenes.map(\.file) == ["scene_001.png", "scene_002.png"])
        #expect(throws: MarkerKitError.self) { try set.checkDestination(dir, force: false) }
        // A run that fails half way leaves nothing of itself, and not the folder it made.
        let fresh = dir.appendingPathComponent("fresh")
        try FileManager.default.createDirectory(at: fresh, withIntermediateDirectories: false)
        struct Stop: Error {}
        #expect(throws: Stop.self) { _ = try set.write(into: fresh, createdDirectory: true) { done, _, _ in if done == 2 { throw Stop() } } }
        #expect(!FileManager.default.fileExists(atPath: fresh.path))
    }

    @Test func oneOwnerForWhereACalibrationGoes() throws {
        let dir = try folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = CalibrationStore(directory: dir.appendingPathComponent("Calibrations"))
        let new = try CalibrationLocation(name: "cam", in: store)
        #expect(new.url.lastPathComponent == "cam.yaml" && new.format == .opencvYAML && new.inStore)
        try new.checkDestination(force: false) // the store's folder is made when written
        let camera = BuiltInCamera.webcam(width: 640, height: 480)
        var named = camera
        named.name = "cam"
        try new.write(named, force: false)
        #expect(throws: MarkerKitError.self) { try new.write(named, force: false) }
        try new.write(named, force: true)
        #expect(try store.resolve("cam").fx == camera.fx)
        // A calibration stored under another extension is the one the name means.
        try CalibrationFormat.json.encode(named).write(to: store.directory.appendingPathComponent("web.json"))
        let json = try CalibrationLocation(name: "web", in: store)
        #expect(json.format == .json && json.url == store.url(for: "web"))
        #expect(try CalibrationLocation(file: dir.appendingPathComponent("c.xml")).format == .opencvXML)
        #expect(throws: MarkerKitError.self) { try CalibrationLocation(file: dir.appendingPathComponent("c.txt")) }
        #expect(throws: MarkerKitError.self) { try CalibrationLocation(name: "../evil", in: store) }
    }
}

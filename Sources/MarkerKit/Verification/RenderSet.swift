import Foundation

/// A test set as `markerkit render` writes it: `scene_NNN.png` for scenes `start..<start+count` of a
/// seed, and `truth.json` with the camera and every marker's truth. Written all or nothing: a failure
/// takes back the images this run wrote (and the folder, when it made it), so that no half set without
/// its truth is left; files under other names stay.
public struct RenderSet {
    /// Whose scenes: one marker a render through `camera`, phone photos of several (each with its
    /// camera), sheets of touching markers through `camera` (`TouchingSceneSampler`), markers on cards in
    /// a cluttered room through `camera` (`ClutterSceneSampler`), or views of a ChArUco board through
    /// `camera` (`CharucoSceneSampler`).
    public enum Profile: Sendable {
        case camera(CameraCalibration)
        case phone
        case touching(CameraCalibration)
        case cluttered(CameraCalibration)
        case charuco(CharucoBoard, CameraCalibration)

        /// The profile's scenes for `seed`; a ChArUco board bent `sag` mm out of plane.
        public func sampler(seed: UInt64, dictionary: MarkerDictionary, sag: Double = 0) -> any SceneSampler {
            switch self {
            case .camera(let c): return MarkerSceneSampler(camera: c, width: c.imageWidth, height: c.imageHeight, seed: seed, dictionary: dictionary)
            case .phone: return PhoneSceneSampler(seed: seed, dictionary: dictionary)
            case .touching(let c): return TouchingSceneSampler(camera: c, width: c.imageWidth, height: c.imageHeight, seed: seed, dictionary: dictionary)
            case .cluttered(let c): return ClutterSceneSampler(camera: c, width: c.imageWidth, height: c.imageHeight, seed: seed, dictionary: dictionary)
            case .charuco(let board, let c):
                var boards = CharucoSceneSampler(board: board, camera: c, seed: seed)
                boards.views.sag = sag
                return boards
            }
        }

        /// Whether its scenes keep the noise, blur and JPEG they were sampled with (else none unless asked).
        var keepsSampledDegradations: Bool {
            switch self {
            case .phone, .touching, .cluttered: return true
            case .camera, .charuco: return false
            }
        }
    }

    public var profile: Profile
    public var seed: UInt64
    public var dictionary: MarkerDictionary
    public var count: Int
    /// The first scene rendered; scenes before it are sampled (cheap) and skipped.
    public var start = 0
    /// Degradations that replace what was sampled; nil keeps the sampled one for phone photos, touching
    /// markers and cluttered scenes and means none (no noise, no blur, no JPEG) with a camera.
    public var noise: Double?
    public var blur: Double?
    public var jpegQuality: Int?
    /// ChArUco boards: bent this many mm out of plane (`CharucoViews.sag`).
    public var sag = 0.0

    /// What a run wrote.
    public struct Outcome {
        public let files: [URL]
        /// Image sizes as WxH, in the order first met.
        public let sizes: [String]
    }

    public init(profile: Profile, seed: UInt64, dictionary: MarkerDictionary = .arucoOriginal, count: Int) {
        self.profile = profile
        self.seed = seed
        self.dictionary = dictionary
        self.count = count
    }

    public static func sceneName(_ index: Int) -> String { String(format: "scene_%03d.png", index) }

    /// Every file a run writes.
    public var fileNames: [String] { ["truth.json"] + (start..<(start + count)).map(Self.sceneName) }

    /// Refuses, before anything is rendered, a folder that holds a file of this set (unless `force`).
    public func checkDestination(_ directory: URL, force: Bool) throws {
        try InputRange.check(count, in: RenderLimits.renderCount, "a render count of")
        try InputRange.check(start, in: RenderLimits.start, "a first scene of")
        try OutputFiles.checkDirectoryDestination(directory, names: fileNames, force: force)
    }

    /// Renders into `directory` (which exists); `createdDirectory` says this run made it, to be removed
    /// again on failure. `progress` gets scenes done, their total and the last file's name.
    public func write(into directory: URL, createdDirectory: Bool = false,
                      progress: (Int, Int, String) throws -> Void = { _, _, _ in }) throws -> Outcome {
        var written: [URL] = []
        do {
            let sizes = try render(into: directory, written: &written, progress: progress)
            return Outcome(files: written, sizes: sizes)
        } catch {
            for url in written { unlink(url.path) }
            if createdDirectory { rmdir(directory.path) }
            throw error
        }
    }

    private func render(into directory: URL, written: inout [URL], progress: (Int, Int, String) throws -> Void) throws -> [String] {
        var phone = false
        if case .phone = profile { phone = true }
        let keepsSampled = profile.keepsSampledDegradations
        var sampler = profile.sampler(seed: seed, dictionary: dictionary, sag: sag)
        let renderer = SceneRenderer()
        var entries: [RenderTruthFile.SceneEntry] = []
        var first: CameraCalibration?
        var sizes: [String] = []
        for _ in 0..<start { _ = try sampler.nextScene() }
        for index in start..<(start + count) {
            let sampled = try sampler.nextScene()
            var scene = sampled.scene
            if let noise = noise ?? (keepsSampled ? nil : 0) { scene.degradations.noise = noise }
            if let blur = blur ?? (keepsSampled ? nil : 0) { scene.degradations.blur = blur }
            if let jpegQuality { scene.degradations.jpegQuality = jpegQuality } else if !keepsSampled { scene.degradations.jpegQuality = nil }
            let name = Self.sceneName(index)
            let image = try renderer.render(scene)
            var files = OutputFiles()
            files.add(try Frame(width: image.width, height: image.height, stride: image.width, format: .gray8, bytes: image.pixels).encoded(as: "png"),
                      at: directory.appendingPathComponent(name))
            written += try files.commit()
            entries.append(try RenderTruthFile.entry(file: name, scene: scene, sampled: sampled, camera: phone))
            first = first ?? scene.camera
            let size = "\(image.width)x\(image.height)"
            if !sizes.contains(size) { sizes.append(size) }
            try progress(index - start + 1, count, name)
        }
        guard let first else { throw MarkerKitError.invalidArgument("a render set has at least one scene") }
        var truth = RenderTruthFile(camera: first, scenes: entries, dictionary: dictionary)
        if case .charuco(let board, _) = profile {
            truth = RenderTruthFile(camera: first, scenes: entries, dictionary: board.dictionary)
            truth.board = .rendered(.charuco(board))
        }
        var files = OutputFiles()
        files.add(try truth.encoded(),
                  at: directory.appendingPathComponent("truth.json"))
        written += try files.commit()
        return sizes
    }
}

import ArgumentParser
import Foundation
import MarkerKit

/// Image size written as WIDTHxHEIGHT in pixels.
func parseImageSize(_ text: String) throws -> (Int, Int) {
    let parts = text.lowercased().split(separator: "x")
    guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]), (16...8192).contains(w), (16...8192).contains(h) else {
        throw MarkerKitError.invalidArgument("--size '\(text)' is not WIDTHxHEIGHT in pixels (16-8192), such as 1280x720")
    }
    return (w, h)
}

/// Noise and blur as users may set them for renders.
func checkDegradations(noise: Double, blur: Double) throws {
    guard noise.isFinite, (0...100).contains(noise), blur.isFinite, (0...20).contains(blur) else {
        throw MarkerKitError.invalidArgument("--noise must be 0-100 and --blur 0-20")
    }
}

/// The camera renders use: a stored or given calibration (at its own image size), else the built-in webcam.
func renderCamera(calibration: String?, size: String) throws -> CameraCalibration {
    if let calibration {
        let c = try CalibrationStore.default.resolve(calibration)
        guard c.imageWidth > 0, c.imageHeight > 0 else {
            throw MarkerKitError.badInput("calibration '\(calibration)' has no image size, which rendering needs")
        }
        return c
    }
    let (w, h) = try parseImageSize(size)
    return BuiltInCamera.webcam(width: w, height: h)
}

struct Render: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Render marker images with exact ground truth, to make your own test sets.",
        discussion: """
        Each image shows one marker at a random size (8-400 px), tilt (0-75°), position and lighting, seen \
        through the camera's lens (a calibration, or a built-in webcam-like camera). DIR/truth.json holds \
        the camera and every marker's ID, corners (pixel centres at integers, as OpenCV) and pose (mm).
        With --profile phone each image is a phone photo instead: 3024x4032 or 2448x3264, portrait or \
        landscape, several markers of 20-250 px with gray patches, text or a second marker printed close \
        beside many of them, and a phone's blur, motion blur, sensor noise, vignetting, shadows and JPEG; \
        truth.json then also holds each image's camera and what is printed beside each marker (the print \
        itself is never in it). --noise, --blur and --jpeg, when given, replace what the profile sampled.

        Examples:
          markerkit render --seed 7 --count 20 -o renders/
          markerkit render --count 100 --calibration webcam --noise 2 --blur 0.5 -o hard/
          markerkit render --clip 20 --size 640x480 -o clip.avi    # then: capture --device clip.avi --auto
          markerkit render --profile phone --count 5 -o phone/
        """
    )

    @Option(help: "Seed: the same seed gives the same images.") var seed: UInt64 = 7
    @Option(help: "Number of images.") var count: Int = 20
    @Option(help: ArgumentHelp("Begin at scene N of the seed (the render numbers verify markers reports): writes scene_N.png onwards.",
                               valueName: "N")) var start: Int = 0
    @OptionGroup var dictionaryOption: DictionaryOption
    @OptionGroup var profileOption: ProfileOption
    @OptionGroup var forceOption: ForceOption
    @Option(help: ArgumentHelp("Image size in pixels, without --calibration (default 1280x720).", valueName: "WxH")) var size: String?
    @Option(help: ArgumentHelp("Camera: a stored name or a calibration file.", valueName: "name|file")) var calibration: String?
    @Option(help: ArgumentHelp("Gaussian noise, standard deviation in gray levels (default 0).", valueName: "sigma")) var noise: Double?
    @Option(help: ArgumentHelp("Gaussian blur, standard deviation in pixels (default 0).", valueName: "sigma")) var blur: Double?
    @Option(help: ArgumentHelp("JPEG quality 1-100 (default: none).", valueName: "quality")) var jpeg: Int?
    @Option(help: ArgumentHelp("Instead of marker images: a video of a 9x6 board (30 mm squares) moved through this many calibration views, with its board spec beside it.", valueName: "views"))
    var clip: Int?
    @Option(name: .shortAndLong, help: ArgumentHelp("Output folder (created when missing), or the video file with --clip.", valueName: "dir|file")) var output: String

    func run() throws {
        if let clip {
            guard !profileOption.isPhone else { throw MarkerKitError.invalidArgument("--clip renders a calibration board: --profile phone does not apply") }
            return try renderClip(views: clip)
        }
        guard (1...100_000).contains(count) else { throw MarkerKitError.invalidArgument("--count \(count) is outside 1-100000") }
        guard (0...1_000_000).contains(start) else { throw MarkerKitError.invalidArgument("--start \(start) is outside 0-1000000") }
        try checkDegradations(noise: noise ?? 0, blur: blur ?? 0)
        if let jpeg, !(1...100).contains(jpeg) { throw MarkerKitError.invalidArgument("--jpeg \(jpeg) is outside 1-100") }
        try profileOption.check(size: size, calibration: calibration)
        let phone = profileOption.isPhone
        let camera = phone ? nil : try renderCamera(calibration: calibration, size: size ?? "1280x720")
        let existed = FileManager.default.fileExists(atPath: output)
        if existed && !forceOption.force {
            // A set rendered earlier into the folder is not replaced without --force.
            for name in ["truth.json"] + (start..<(start + count)).map({ String(format: "scene_%03d.png", $0) }) {
                let path = URL(fileURLWithPath: output).appendingPathComponent(name)
                if FileManager.default.fileExists(atPath: path.path) {
                    throw MarkerKitError.cannotWrite("'\(path.relativePath)' exists: add --force to replace it")
                }
            }
        }
        let directory = try Detect.makeDirectory(output, option: "-o")
        var written: [URL] = []
        var sizes: [String] = []
        do {
            var sampler: any SceneSampler = if let camera {
                MarkerSceneSampler(camera: camera, width: camera.imageWidth, height: camera.imageHeight, seed: seed, dictionary: dictionaryOption.dictionary)
            } else {
                PhoneSceneSampler(seed: seed, dictionary: dictionaryOption.dictionary)
            }
            let renderer = SceneRenderer()
            var entries: [RenderTruthFile.SceneEntry] = []
            var first: CameraCalibration?
            let progress = ProgressBar(label: "rendering")
            // Scenes before --start are sampled (cheap) and not rendered.
            for _ in 0..<start { _ = try sampler.nextScene() }
            for index in start..<(start + count) {
                let sampled = try sampler.nextScene()
                var scene = sampled.scene
                // The default profile renders without noise, blur or JPEG unless asked; the phone profile
                // keeps what it sampled unless asked.
                if let noise = noise ?? (phone ? nil : 0) { scene.degradations.noise = noise }
                if let blur = blur ?? (phone ? nil : 0) { scene.degradations.blur = blur }
                if let jpeg { scene.degradations.jpegQuality = jpeg } else if !phone { scene.degradations.jpegQuality = nil }
                let name = String(format: "scene_%03d.png", index)
                let image = try renderer.render(scene)
                var files = OutputFiles()
                files.add(try Frame(width: image.width, height: image.height, stride: image.width, format: .gray8, bytes: image.pixels).encoded(as: "png"),
                          at: directory.appendingPathComponent(name))
                written += try files.commit()
                entries.append(try RenderTruthFile.entry(file: name, scene: scene, sampled: sampled, camera: phone))
                first = first ?? scene.camera
                let size = "\(image.width)x\(image.height)"
                if !sizes.contains(size) { sizes.append(size) }
                progress.update(index - start + 1, count, name)
            }
            progress.finish()
            var files = OutputFiles()
            files.add(try RenderTruthFile(camera: first!, scenes: entries, dictionary: dictionaryOption.dictionary).encoded(),
                      at: directory.appendingPathComponent("truth.json"))
            written += try files.commit()
        } catch {
            // A failed run (a full disk, say) takes back what it wrote, so that no half set of images
            // without its truth.json is left; earlier files under other names stay.
            for url in written { unlink(url.path) }
            if !existed { rmdir(directory.path) }
            throw error
        }
        if let camera {
            print("rendered \(count) images \(camera.imageWidth)x\(camera.imageHeight) into \(directory.relativePath)/ with truth.json (camera \(camera.name), seed \(seed))")
        } else {
            print("rendered \(count) phone photos (\(sizes.joined(separator: ", "))) into \(directory.relativePath)/ with truth.json (camera builtin-phone, seed \(seed))")
        }
    }

    /// A clip for the capture assistant: each view held 0.7 s, 0.3 s of motion between, at 10 fps.
    func renderClip(views: Int) throws {
        guard (2...500).contains(views) else { throw MarkerKitError.invalidArgument("--clip \(views) is outside 2-500") }
        let url = URL(fileURLWithPath: output)
        guard url.pathExtension.lowercased() == "avi" else { throw MarkerKitError.cannotWrite("cannot write '\(output)': --clip writes an .avi") }
        try OutputFiles.checkDestination(url, force: forceOption.force)
        let camera = try renderCamera(calibration: calibration, size: size ?? "1280x720")
        var verification = try CalibrationVerification(camera: camera, width: camera.imageWidth, height: camera.imageHeight, views: views, seed: seed)
        verification.noise = noise ?? 0
        verification.blur = blur ?? 0
        try verification.renderClip(to: url, hold: 7, move: 3, fps: 10)
        let spec = url.deletingPathExtension().appendingPathExtension("json")
        var files = OutputFiles()
        files.add(try BoardSpec(board: verification.board, page: PageSize(name: "A4", width: .mm(210), height: .mm(297)), origin: (0, 0)).encoded(), at: spec)
        try files.commit()
        print("rendered \(url.relativePath): \(views) views of a \(verification.board.summary) board, \(camera.imageWidth)x\(camera.imageHeight) at 10 fps (camera \(camera.name), fx \(String(format: "%.2f", camera.fx))); board spec \(spec.relativePath)")
    }
}

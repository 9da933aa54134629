import ArgumentParser
import Foundation
import MarkerKit

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
        itself is never in it). With --profile touching each image is a sheet of markers that touch: \
        ArUco's marker chessboard (diagonal neighbours share a corner) or a tight grid (a quarter to one \
        cell apart), 16-120 px markers, sharp or blurred, face-on or tilted, square to the image or turned. \
        With --profile cluttered each image is 3-30 markers on cards among pages of text, grids of gray \
        and black squares, codes of no dictionary and lone dark squares, on a textured background or in \
        front of a printed poster, with a webcam's noise, blur and (three times in ten) JPEG. \
        --noise, --blur and --jpeg, when given, replace what the profile sampled.
        With --board (and no --clip) each image is a view of a ChArUco board instead, whole in the image or \
        leaving it (half of each), tilted 0-60°, optionally bent (--bend); truth.json then also holds the \
        board and, per image, its corners in view (OpenCV's corner IDs) and the markers wholly in view. \
        'markerkit verify board --truth DIR' measures board corners on such a folder.

        Examples:
          markerkit render --seed 7 --count 20 -o renders/
          markerkit render --count 100 --calibration webcam --noise 2 --blur 0.5 -o hard/
          markerkit render --clip 20 --size 640x480 -o clip.avi    # then: capture --device clip.avi --auto
          markerkit render --clip 20 --board charuco -o clip.avi   # a ChArUco board leaving the image
          markerkit render --clip 20 --size 640x480 -o clip/       # the same as PNG frames, truth.json beside
          markerkit render --clip 12 --rig 2 -o rig/               # rig/cam0.avi, rig/cam1.avi, for capture --device x2
          markerkit render --board charuco --count 20 --k1 -0.4 --blur 0.8 -o boards/
          markerkit render --profile phone --count 5 -o phone/
          markerkit render --profile touching --count 20 -o touching/
          markerkit render --profile cluttered --size 640x480 --count 20 -o cluttered/
        """
    )

    @Option(help: "Seed: the same seed gives the same images.") var seed: UInt64 = 7
    @Option(help: "Number of images, 1-100000.") var count: Int = 20
    @Option(help: ArgumentHelp("Begin at scene N of the seed (the render numbers verify markers reports): writes scene_N.png onwards; 0-1000000.",
                               valueName: "N")) var start: Int = 0
    @OptionGroup var dictionaryOption: DictionaryOption
    @OptionGroup var profileOption: ProfileOption
    @OptionGroup var forceOption: ForceOption
    @Option(help: ArgumentHelp("Image size in pixels, without --calibration (default 1280x720).", valueName: "WxH"), transform: ImageSize.parse)
    var size: ImageSize?
    @Option(help: ArgumentHelp("Camera: a stored name or a calibration file.", valueName: "name|file")) var calibration: String?
    @Option(help: ArgumentHelp("Gaussian noise, standard deviation in gray levels, 0-100 (default 0).", valueName: "sigma")) var noise: Double?
    @Option(help: ArgumentHelp("Gaussian blur, standard deviation in pixels, 0-20 (default 0).", valueName: "sigma")) var blur: Double?
    @Option(help: ArgumentHelp("JPEG quality 1-100 (default: none).", valueName: "quality")) var jpeg: Int?
    @Option(help: ArgumentHelp("Instead of marker images: a video of a 9x6 board (30 mm squares) moved through this many calibration views (2-500), with its board spec beside it.", valueName: "views"))
    var clip: Int?
    @Option(help: ArgumentHelp("With --clip: a clip per camera of a rendered rig of 2 or 3 cameras (cam0.avi, ..., board.json and the true rig truth.yaml) into the folder -o, for capture with several --device.", valueName: "n"))
    var rig: Int?
    @Option(help: ArgumentHelp("Views of a ChArUco board: 'charuco' for a 10x7 board (30 mm squares, 22 mm markers) or a ChArUco board spec; with --clip the board leaves the image in every view.", valueName: "charuco|board.json"))
    var board: String?
    @Option(help: ArgumentHelp("With --board: the board bent out of plane, its middle this far off the line between its sides (e.g. 2mm).", valueName: "length"),
            transform: LengthArgument.nonNegative)
    var bend: Length?
    @Option(parsing: .unconditional, help: ArgumentHelp("The camera's k1 instead of its own (a pinhole model), -1 to 1, e.g. -0.4 for a strong barrel lens.", valueName: "k1"))
    var k1: Double?
    @Option(name: .shortAndLong, help: ArgumentHelp("Output folder (created when missing); with --clip the video file (.avi) or a folder for its PNG frames.", valueName: "dir|file")) var output: String

    func run() throws {
        if bend != nil && (board == nil || clip != nil) { throw MarkerKitError.invalidArgument("--bend goes with --board (without --clip)") }
        if rig != nil && clip == nil { throw MarkerKitError.invalidArgument("--rig goes with --clip") }
        if let clip, let rig { return try renderRigClip(views: clip, cameras: rig, charuco: board.map(BoardOptions.renderedCharuco)) }
        if let clip {
            guard profileOption.profile == .default else {
                throw MarkerKitError.invalidArgument("--clip renders a calibration board: --profile \(profileOption.profile.rawValue) does not apply")
            }
            return try renderClip(views: clip, charuco: board.map(BoardOptions.renderedCharuco))
        }
        try InputRange.check(count, in: RenderLimits.renderCount, "--count")
        try InputRange.check(start, in: RenderLimits.start, "--start")
        try checkDegradations(noise: noise ?? 0, blur: blur ?? 0)
        if let jpeg { try InputRange.check(jpeg, in: RenderLimits.jpegQuality, "--jpeg") }
        try profileOption.check(size: size, calibration: calibration)
        let camera = profileOption.isPhone ? nil : try replacingK1(k1, of: renderCamera(calibration: calibration, size: size ?? .webcam))
        let charuco = try board.map(BoardOptions.renderedCharuco)
        if let charuco, dictionaryOption.dictionary != .arucoOriginal, dictionaryOption.dictionary != charuco.dictionary {
            throw MarkerKitError.invalidArgument("--dictionary \(dictionaryOption.dictionary.name) differs from the board's \(charuco.dictionary.name): leave it out")
        }
        if charuco != nil, profileOption.profile != .default {
            throw MarkerKitError.invalidArgument("--board renders a ChArUco board: --profile \(profileOption.profile.rawValue) does not apply")
        }
        var set = RenderSet(profile: camera.map { c in charuco.map { .charuco($0, c) } ?? profileOption.renderProfile(camera: c) } ?? .phone, seed: seed,
                            dictionary: dictionaryOption.dictionary, count: count)
        set.sag = bend?.millimetres ?? 0
        set.start = start
        set.noise = noise
        set.blur = blur
        set.jpegQuality = jpeg
        try set.checkDestination(URL(fileURLWithPath: output), force: forceOption.force)
        let folder = try OutputFolder(output, option: "-o")
        let progress = ProgressBar(label: "rendering")
        let outcome = try set.write(into: folder.url, createdDirectory: folder.created) { done, total, name in
            progress.update(done, total, name)
        }
        progress.finish()
        let directory = folder.url.relativePath
        if let camera, let charuco {
            print("rendered \(count) views of the ChArUco \(charuco.summary) board\(bend.map { ", bent \($0)," } ?? "") \(camera.imageWidth)x\(camera.imageHeight) into \(directory)/ with truth.json (camera \(camera.name), seed \(seed))")
        } else if let camera {
            print("rendered \(count) \(profileOption.isTouching ? "sheets of touching markers" : profileOption.profile == .cluttered ? "cluttered scenes" : "images") \(camera.imageWidth)x\(camera.imageHeight) into \(directory)/ with truth.json (camera \(camera.name), seed \(seed))")
        } else {
            print("rendered \(count) phone photos (\(outcome.sizes.joined(separator: ", "))) into \(directory)/ with truth.json (camera builtin-phone, seed \(seed))")
        }
    }
}

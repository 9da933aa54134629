import ArgumentParser
import Foundation
import MarkerKit

struct VerifyPose: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pose",
        abstract: "Marker poses in a rendered clip with exact truth: MarkerKit's beside OpenCV's solvePnP(IPPE_SQUARE) per frame.",
        discussion: """
        One marker (50 mm), or with --target a sheet of markers, a cube of them or a ChArUco board, is rendered in segments, one per size in the image (--sizes: 20, 40, 80, 160 and 280 \
        px side face-on), each a clip of its own: the marker tilts from facing the camera to 70° and back while \
        the tilt's axis turns and it drifts across the image, every motion continuous, then is held still at 15° and at 6° (moving smoothly between), where a \
        square's two poses are hardest to tell apart. MarkerKit runs each segment as a stream, as track \
        and detect on a video do (an ambiguous marker's pose chosen by the frames before); OpenCV 4.6 \
        detects each frame and solves solvePnP(SOLVEPNP_IPPE_SQUARE) on its corners, as its users do (for \
        a board: interpolateCornersCharuco with the camera, then solvePnP on the corners, as \
        estimatePoseCharucoBoard does; for a sheet or the cube, solvePnP on the corners of all its markers found; \
        MarkerKit gives the board's or the sheet's pose as detect and track --board do). \
        Per bucket of size, tilt and motion: recall, rotation error P50 and P90 (degrees), translation \
        error P50 (% of the distance), flips per 1000 frames (a jump between the marker's two poses, \
        counted where the truth's two poses are 5° or more apart), frames on the mirror pose per 1000, \
        the RMS of true error over MarkerKit's predicted sigma (err/σ, 1 when the sigma is right) and the \
        jitter (the RMS turn from one still frame to the next). mk-frame is MarkerKit's better-reprojecting \
        pose of each frame alone; mk-smooth is MarkerKit as track --smooth reports it (steadier when still, \
        the lag shows in the moving frames' error).

        Examples:
          markerkit verify pose
          markerkit verify pose --noise 4 --blur 1.2 --json pose.json
          markerkit verify pose --target charuco
          markerkit verify pose --target sheet
          markerkit verify pose --target cube
        """
    )

    @Option(help: ArgumentHelp("What the clip shows: 'marker' (one 50 mm marker), 'sheet' (six 40 mm markers, 2 rows of 3, 20 mm apart), 'cube' (60 mm, a 40 mm marker on each face), 'charuco' (a board of 5x7 squares of 30 mm, 22 mm markers) or a ChArUco board spec.",
                               valueName: "marker|sheet|cube|charuco|board.json"))
    var target = "marker"
    @Option(help: "Seed: the same seed gives the same clip.") var seed: UInt64 = 7
    @Option(help: ArgumentHelp("Image size in pixels, without --calibration (default 1280x720).", valueName: "WxH"), transform: ImageSize.parse)
    var size = ImageSize.webcam
    @Option(help: ArgumentHelp("Camera: a stored name or a calibration file.", valueName: "name|file")) var calibration: String?
    @Option(help: ArgumentHelp("Gaussian noise in gray levels, 0-100.", valueName: "sigma")) var noise: Double = 2
    @Option(help: ArgumentHelp("Gaussian blur in pixels, 0-20.", valueName: "sigma")) var blur: Double = 0.7
    @Option(help: ArgumentHelp("JPEG quality 1-100.", valueName: "quality")) var jpeg: Int = 90
    @Option(help: ArgumentHelp("The segments' sizes in the image: a marker's side or a board's longer side face-on, in pixels, 8-2000 (default 20,40,80,160,280 for a marker, 150,250,400 for a board or sheet, 80,150,250 for the cube).",
                               valueName: "px,px,..."))
    var sizes: String?
    @Option(help: ArgumentHelp("Frames of each segment's sweep, 10-10000.", valueName: "n")) var sweepFrames: Int = 150
    @Option(help: ArgumentHelp("Frames of each of its two holds, 10-10000.", valueName: "n")) var holdFrames: Int = 40
    @Option(help: ArgumentHelp("Write every figure and every frame's outcome as JSON.", valueName: "file")) var json: String?
    @OptionGroup var jobs: JobsOption
    @OptionGroup var forceOption: ForceOption

    func run() throws {
        try checkDegradations(noise: noise, blur: blur)
        try InputRange.check(jpeg, in: RenderLimits.jpegQuality, "--jpeg")
        try InputRange.check(sweepFrames, in: RenderLimits.poseFrames, "--sweep-frames")
        try InputRange.check(holdFrames, in: RenderLimits.poseFrames, "--hold-frames")
        let jobCount = try jobs.count()
        let jsonURL = try outputFile(json, force: forceOption.force)
        var degradations = Degradations()
        (degradations.noise, degradations.blur, degradations.jpegQuality) = (noise, blur, jpeg)
        var clip = PoseClip(camera: try renderCamera(calibration: calibration, size: size), seed: seed, degradations: degradations)
        (clip.sweepFrames, clip.holdFrames) = (sweepFrames, holdFrames)
        switch target.lowercased() {
        case "marker": break
        case "sheet": (clip.subject, clip.sizes) = (.sheet(PoseClip.sheet), PoseClip.boardSizes)
        case "cube": (clip.subject, clip.sizes) = (.cube(PoseClip.cube), PoseClip.cubeSizes)
        case "charuco": (clip.subject, clip.sizes) = (.charuco(PoseClip.board), PoseClip.boardSizes)
        default: (clip.subject, clip.sizes) = (.charuco(try BoardSpec.read(from: URL(fileURLWithPath: target)).charucoBoard()), PoseClip.boardSizes)
        }
        if let sizes { clip.sizes = try PoseClip.sizes(sizes, option: "--sizes") }
        let progress = ProgressBar(label: "verifying")
        Interrupt.install()
        let trials = try PoseVerification(clip: clip).run(jobs: jobCount) { done, total in
            progress.update(done, total, "")
            try Interrupt.checkpoint("verify pose")
        }
        progress.finish()
        let summary = PoseVerificationSummary(trials: trials, clip: clip)
        print(summary.table)
        if let jsonURL { try writeJSON(PoseVerificationReport(summary: summary, trials: trials), to: jsonURL) }
    }
}

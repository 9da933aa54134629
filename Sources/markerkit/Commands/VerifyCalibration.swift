import ArgumentParser
import Foundation
import MarkerKit

struct VerifyCalibration: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "calibration",
        abstract: "Calibrate rendered checkerboard views of a known camera with MarkerKit's pipeline and OpenCV's sample pipeline.",
        discussion: """
        The truth is the built-in webcam-like camera (or --calibration); the views show a 9x6 board of 30 mm \
        squares at random distances and positions, tilted 10-45° in directions spread around the circle. Reports each intrinsic's error against the truth, \
        and how far a pixel near the image's edges lands from itself when sent through the true lens and back through the estimate.

        With --board charuco (or a ChArUco board spec) as many views of a ChArUco board of the same size \
        (10x7 squares of 30 mm, 22 mm markers) are rendered on the same camera, each leaving part of the board \
        outside the image, and calibrated too: the chessboard must be seen whole, the ChArUco board need not. \
        The board corners found in those renders are also measured against their truth, MarkerKit's beside \
        OpenCV's interpolateCornersCharuco without and with the true camera matrix.

        With --uncertainty-seeds N, N more sets of views (the seeds after --seed) are rendered and calibrated, \
        and at a grid of pixels each calibration's true projection error (as mrcal defines it: a point fixed \
        in the boards' frames, brought back by the estimated poses) is divided by its predicted sigma along the \
        predicted worst direction: an RMS of 1 means the uncertainty means what it says.

        Examples:
          markerkit verify calibration --views 30 --seed 7
          markerkit verify calibration --views 20 --noise 2 --json calib.json
          markerkit verify calibration --views 20 --board charuco --k1 -0.4
          markerkit verify calibration --uncertainty-seeds 50      # does the projection uncertainty mean what it says?
          markerkit verify calibration --rig 3 --views 20 --uncertainty-seeds 10   # a rig against OpenCV's stereoCalibrate

        With --rig 2 or 3, a rig of built-in cameras with different lenses and a known baseline and rotation is \
        rendered (the third camera at 1024x768) and calibrated jointly, beside OpenCV's pipeline (each camera \
        calibrated, each pair by stereoCalibrate); each camera's pose error is printed with MarkerKit's error over \
        its own sigma, over --uncertainty-seeds seeds (default 1). With --board charuco the views show a ChArUco \
        board, which may leave a camera's image: a camera that sees 12 of its corners counts.
        """
    )

    @Option(help: "Number of views, 3-500.") var views: Int = 30
    @Option(help: "Seed.") var seed: UInt64 = 7
    @Option(help: ArgumentHelp("Image size in pixels, without --calibration (default: 1280x720).", valueName: "WxH"), transform: ImageSize.parse)
    var size = ImageSize.webcam
    @Option(help: ArgumentHelp("The true camera: a stored name or a calibration file.", valueName: "name|file")) var calibration: String?
    @Option(help: ArgumentHelp("Also calibrate from ChArUco views leaving the image: 'charuco' or a ChArUco board spec.", valueName: "charuco|board.json"))
    var board: String?
    @Option(parsing: .unconditional, help: ArgumentHelp("The true camera's k1 instead of its own (a pinhole model), -1 to 1, e.g. -0.4 for a strong barrel lens.", valueName: "k1"))
    var k1: Double?
    @Option(help: ArgumentHelp("Gaussian noise in gray levels, 0-100.", valueName: "sigma")) var noise: Double = 0
    @Option(help: ArgumentHelp("Gaussian blur in pixels, 0-20.", valueName: "sigma")) var blur: Double = 0
    @Option(help: ArgumentHelp("Also check the projection uncertainty: calibrate this many seeds' views and compare each calibration's true error with its predicted sigma (50 or more for a figure; at most 10000).", valueName: "n"))
    var uncertaintySeeds = 0
    @Option(help: ArgumentHelp("With --uncertainty-seeds: the range of the points checked, with a unit, or inf (default).", valueName: "length|inf"),
            transform: RangeArgument.parse)
    var range: Length?? = nil
    @Option(help: ArgumentHelp("Render and calibrate a rig of 2 or 3 cameras instead of one camera.", valueName: "n")) var rig: Int?
    @Option(help: ArgumentHelp("Write the figures as JSON.", valueName: "file")) var json: String?
    @OptionGroup var forceOption: ForceOption

    func run() throws {
        try InputRange.check(views, in: RenderLimits.calibrationViews, "--views")
        try InputRange.check(uncertaintySeeds, in: RenderLimits.uncertaintySeeds, "--uncertainty-seeds")
        try checkDegradations(noise: noise, blur: blur)
        if let rig { return try runRig(cameras: rig) }
        let camera = try replacingK1(k1, of: renderCamera(calibration: calibration, size: size))
        let charuco = try board.map(BoardOptions.renderedCharuco)
        guard camera.imageWidth >= 160, camera.imageHeight >= 120 else {
            throw MarkerKitError.invalidArgument("calibration views need at least 160x120 pixels, not \(camera.imageWidth)x\(camera.imageHeight)")
        }
        let jsonURL = try outputFile(json, force: forceOption.force)
        var verification = try CalibrationVerification(camera: camera, width: camera.imageWidth, height: camera.imageHeight, views: views, seed: seed)
        verification.noise = noise
        verification.blur = blur
        verification.charuco = charuco
        Interrupt.install()
        var summary = try verification.run { try Interrupt.checkpoint("verify calibration") }
        if uncertaintySeeds > 0 {
            summary.uncertainty = try UncertaintyCheck.run(verification, seeds: uncertaintySeeds, range: (range ?? nil)?.millimetres) {
                try Interrupt.checkpoint("verify calibration")
            }
        }
        print(summary.table)
        if let jsonURL { try writeJSON(summary, to: jsonURL) }
    }

    private func runRig(cameras: Int) throws {
        guard calibration == nil, k1 == nil else { throw ValidationError("--rig renders its own cameras: --calibration and --k1 take one camera") }
        let jsonURL = try outputFile(json, force: forceOption.force)
        var verification = try RigVerification(cameras: cameras, views: views, seed: seed)
        verification.noise = noise
        verification.blur = blur
        verification.charuco = try board.map(BoardOptions.renderedCharuco)
        Interrupt.install()
        let summary = try verification.run(seeds: max(uncertaintySeeds, 1)) { try Interrupt.checkpoint("verify calibration") }
        print(summary.table)
        if let jsonURL { try writeJSON(summary, to: jsonURL) }
    }
}

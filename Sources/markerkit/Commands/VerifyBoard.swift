import ArgumentParser
import Foundation
import MarkerKit

struct VerifyBoard: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "board",
        abstract: "ChArUco board corners on renders with exact truth: MarkerKit's beside OpenCV's interpolateCornersCharuco.",
        discussion: """
        Views of the board are sampled with a seed (whole in the image or leaving it, half of each, tilted \
        0-60° in any direction, random lighting) and rendered through the camera (the built-in webcam-like \
        one, --calibration, or either with --k1), with the noise, blur and bend given. Each pipeline's board \
        corners are scored against the truth: corners found within 1 px of the true corner of the same ID, \
        corners reported with no true corner of their ID within 1 px ('wrong'), RMSE and worst error. OpenCV \
        4.6 is run without and with the true camera matrix, and scored as it returns its corners and with its \
        half-pixel offset (opencv#25539) taken off. With --truth, the same on a folder 'markerkit render \
        --board' wrote, against its truth.json.

        Examples:
          markerkit verify board
          markerkit verify board --k1 -0.4 --blur 1 --noise 2 --bend 3mm
          markerkit render --board board.json --count 30 -o boards && markerkit verify board --truth boards
        """
    )

    @Option(help: ArgumentHelp("The board: 'charuco' (10x7 squares of 30 mm, 22 mm markers) or a ChArUco board spec.", valueName: "charuco|board.json"))
    var board = "charuco"
    @Option(help: "Number of renders, 1-10000.") var renders: Int = 30
    @Option(help: "Seed: the same seed gives the same scenes.") var seed: UInt64 = 7
    @Option(help: ArgumentHelp("Image size in pixels, without --calibration (default 1280x720).", valueName: "WxH"), transform: ImageSize.parse)
    var size = ImageSize.webcam
    @Option(help: ArgumentHelp("Camera: a stored name or a calibration file.", valueName: "name|file")) var calibration: String?
    @Option(parsing: .unconditional, help: ArgumentHelp("The camera's k1 instead of its own (a pinhole model), -1 to 1, e.g. -0.4 for a strong barrel lens.", valueName: "k1"))
    var k1: Double?
    @Option(help: ArgumentHelp("Gaussian noise in gray levels, 0-100.", valueName: "sigma")) var noise: Double = 0
    @Option(help: ArgumentHelp("Gaussian blur in pixels, 0-20.", valueName: "sigma")) var blur: Double = 0
    @Option(help: ArgumentHelp("The board bent out of plane, its middle this far off the line between its sides (e.g. 2mm).", valueName: "length"),
            transform: LengthArgument.nonNegative)
    var bend: Length?
    @Option(help: ArgumentHelp("A folder 'markerkit render --board' wrote (or its truth.json), measured instead of sampled renders.", valueName: "dir"))
    var truth: String?
    @Option(help: ArgumentHelp("Write the figures as JSON.", valueName: "file")) var json: String?
    @OptionGroup var forceOption: ForceOption

    func run() throws {
        try InputRange.check(renders, in: RenderLimits.boardRenders, "--renders")
        try checkDegradations(noise: noise, blur: blur)
        let jsonURL = try outputFile(json, force: forceOption.force)
        Interrupt.install()
        let checkpoint = { try Interrupt.checkpoint("verify board") }
        let accuracy: CharucoCornerAccuracy
        if let truth {
            var url = URL(fileURLWithPath: truth)
            var isFolder: ObjCBool = false
            if FileManager.default.fileExists(atPath: truth, isDirectory: &isFolder), isFolder.boolValue { url = url.appendingPathComponent("truth.json") }
            let file = try RenderTruthFile.read(from: url)
            accuracy = try CharucoCornerAccuracy.measure(truth: file, folder: url.deletingLastPathComponent(), checkpoint: checkpoint)
            print("\(file.scenes.count) board renders of \(url.relativePath)")
        } else {
            let charuco = try BoardOptions.renderedCharuco(board)
            let camera = try replacingK1(k1, of: renderCamera(calibration: calibration, size: size))
            accuracy = try CharucoCornerAccuracy.sampled(board: charuco, camera: camera, count: renders, seed: seed, noise: noise, blur: blur,
                                                         sag: bend?.millimetres ?? 0, checkpoint: checkpoint)
            print("\(renders) renders \(camera.imageWidth)x\(camera.imageHeight) of the ChArUco \(charuco.summary) board, seed \(seed), camera \(camera.name) k1 \(camera.distortion.first ?? 0), noise \(noise), blur \(blur), bend \(bend?.description ?? "0 mm")")
        }
        print(accuracy.table)
        if let jsonURL { try writeJSON(accuracy, to: jsonURL) }
    }
}

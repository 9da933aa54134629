import Foundation

/// A rendered clip of a checkerboard (or, with the verification's ChArUco board, of that board leaving
/// the image in every view) for the capture assistant, as `markerkit render --clip` writes it:
/// the video (each view held, then moved to the next) and the board spec beside it (`NAME.json`), which
/// `capture --board` and `calibrate --board` read. Both destinations are checked before any frame is
/// rendered; the spec is written only once the video is complete.
public struct BoardClip {
    public var verification: CalibrationVerification
    /// Frames each view is held, and frames of motion between two views.
    public var hold = 7, move = 3
    public var framesPerSecond = 10.0

    public init(verification: CalibrationVerification) {
        self.verification = verification
    }

    /// Where the board spec of a clip at `video` goes.
    public static func specURL(for video: URL) -> URL { video.deletingPathExtension().appendingPathExtension("json") }

    /// Writes the clip (an .avi) and its board spec; replaces existing files only with `force`.
    @discardableResult
    public func write(to video: URL, force: Bool) throws -> (video: URL, spec: URL) {
        guard video.pathExtension.lowercased() == "avi" else {
            throw MarkerKitError.cannotWrite("cannot write '\(video.relativePath)': a clip is written as .avi")
        }
        let spec = Self.specURL(for: video)
        try OutputFiles.checkDestination(video, force: force)
        try OutputFiles.checkDestination(spec, force: force)
        try verification.renderClip(to: video, hold: hold, move: move, fps: framesPerSecond)
        var files = OutputFiles()
        let boardSpec = BoardSpec.rendered(verification.charuco.map { .charuco($0) } ?? .checkerboard(verification.board))
        files.add(try boardSpec.encoded(), at: spec)
        try files.commit()
        return (video, spec)
    }

    /// The file of frame `index` in a folder of frames.
    public static func frameName(_ index: Int) -> String { String(format: "frame_%04d.png", index) }

    /// How many frames the clip has.
    public var frameCount: Int { verification.views * hold + (verification.views - 1) * max(move, 1) }

    /// Writes the clip as a folder of gray PNG frames instead (`frame_0000.png`, ... in order, lossless,
    /// e.g. for the fake camera's MARKERKIT_FAKE_CAMERA_FRAMES_DIR), with `board.json` and `truth.json`
    /// (the camera the frames were rendered with) beside them. The folder exists; a file of the clip in it
    /// is replaced only with `force`. Nothing is written until every frame is rendered.
    @discardableResult
    public func writeFrames(into directory: URL, force: Bool) throws -> (frames: Int, spec: URL) {
        let spec = directory.appendingPathComponent("board.json")
        try OutputFiles.checkDirectoryDestination(directory, names: ["board.json", "truth.json"] + (0..<frameCount).map(Self.frameName), force: force)
        var files = OutputFiles()
        var index = 0
        try verification.renderClip(hold: hold, move: move) { gray, repeats in
            let png = try Frame(width: gray.width, height: gray.height, stride: gray.width, format: .gray8, bytes: gray.pixels).encoded(as: "png")
            for _ in 0..<repeats {
                files.add(png, at: directory.appendingPathComponent(Self.frameName(index)))
                index += 1
            }
        }
        let boardSpec = BoardSpec.rendered(verification.charuco.map { .charuco($0) } ?? .checkerboard(verification.board))
        files.add(try boardSpec.encoded(), at: spec)
        // The camera only: a clip's frames have no markers of their own to list.
        var truth = RenderTruthFile(camera: verification.camera, scenes: [], dictionary: verification.charuco?.dictionary ?? .arucoOriginal)
        truth.board = verification.charuco.map { .rendered(.charuco($0)) }
        files.add(try truth.encoded(), at: directory.appendingPathComponent("truth.json"))
        try files.commit()
        return (index, spec)
    }
}

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
}

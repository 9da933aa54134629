import Foundation
import MarkerKit

/// Which board `calibrate` looks for: --board (a chessboard or ChArUco spec), else --inner with --square,
/// else the one a capture log names.
enum BoardOptions {
    static func target(board: String?, inner: InnerCorners?, square: Length?, log: CaptureLog?) throws -> CalibrationTarget {
        if let board { return try BoardSpec.read(from: URL(fileURLWithPath: board)).calibrationTarget() }
        if let inner, let square {
            return .checkerboard(try Checkerboard(innerColumns: inner.columns, innerRows: inner.rows, square: square))
        }
        if let fromLog = try log?.calibrationTarget() { return fromLog }
        throw MarkerKitError.invalidArgument("give --board board.json, or --inner and --square (or a capture log that names its board)")
    }

    /// What `detect --board` and `track --board` look for: a ChArUco board or a checkerboard (a board
    /// spec) or a marker map. A ChArUco board's or a map's dictionary is the one markers are read in, so a
    /// different --dictionary is refused; a map's pose needs a calibration. `poses` makes the pose estimator,
    /// given a board's own length that stands for --marker-size (a ChArUco board's marker side, a
    /// checkerboard's square).
    static func detected(board: String?, dictionary: MarkerDictionary, poses: (_ boardMarker: Length?) throws -> MarkerPoseEstimator?) throws
        -> (charuco: CharucoBoard?, map: MarkerMap?, checkerboard: Checkerboard?, estimator: MarkerPoseEstimator?) {
        guard let board else { return (nil, nil, nil, try poses(nil)) }
        let file = try BoardFile.read(from: URL(fileURLWithPath: board))
        if let boardDictionary = try file.dictionary(), dictionary != .arucoOriginal, dictionary != boardDictionary {
            throw MarkerKitError.invalidArgument("--dictionary \(dictionary.name) differs from the board's \(boardDictionary.name): leave it out")
        }
        switch file {
        case .charuco(let charuco): return (charuco, nil, nil, try poses(charuco.marker))
        case .checkerboard(let checkerboard): return (nil, nil, checkerboard, try poses(checkerboard.square))
        case .map(let map):
            guard let estimator = try poses(nil) else {
                throw MarkerKitError.invalidArgument("--board with a marker map finds its pose: give --calibration and --marker-size too")
            }
            return (nil, map, nil, estimator)
        }
    }

    /// The ChArUco board of `verify calibration --board` and `render --clip --board`: `charuco` for one as
    /// large as the rendered chessboard (10x7 squares of 30 mm, 22 mm markers), else a board spec file.
    static func renderedCharuco(_ text: String) throws -> CharucoBoard {
        if text.lowercased() == "charuco" { return try CharucoBoard(squaresX: 10, squaresY: 7, square: .mm(30), marker: .mm(22)) }
        return try BoardSpec.read(from: URL(fileURLWithPath: text)).charucoBoard()
    }
}

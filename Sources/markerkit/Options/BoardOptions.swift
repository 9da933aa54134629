import Foundation
import MarkerKit

/// Which board `calibrate` looks for: --board, else --inner with --square, else the one a capture log names.
enum BoardOptions {
    static func checkerboard(board: String?, inner: InnerCorners?, square: Length?, log: CaptureLog?) throws -> Checkerboard {
        if let board { return try BoardSpec.read(from: URL(fileURLWithPath: board)).checkerboard() }
        if let inner, let square {
            return try Checkerboard(innerColumns: inner.columns, innerRows: inner.rows, square: square)
        }
        if let fromLog = try log?.checkerboard() { return fromLog }
        throw MarkerKitError.invalidArgument("give --board board.json, or --inner and --square (or a capture log that names its board)")
    }
}

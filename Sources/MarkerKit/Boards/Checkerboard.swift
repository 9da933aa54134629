/// A chessboard calibration target, described as OpenCV's `findChessboardCorners` sees it: by its inner
/// corners (where four squares meet). 9x6 inner corners means 10x7 squares.
public struct Checkerboard: Equatable, Sendable {
    public let innerColumns: Int
    public let innerRows: Int
    public let square: Length

    public init(innerColumns: Int, innerRows: Int, square: Length) throws {
        guard innerColumns >= 3, innerRows >= 3 else {
            throw MarkerKitError.invalidArgument(
                "a \(innerColumns)x\(innerRows) board is too small: OpenCV needs at least 3x3 inner corners")
        }
        guard innerColumns <= 200, innerRows <= 200 else {
            throw MarkerKitError.invalidArgument("a \(innerColumns)x\(innerRows) board has too many corners (at most 200 a side)")
        }
        guard square.millimetres > 0, square <= Length.longest else {
            throw MarkerKitError.invalidArgument("the square size must be greater than zero and at most 1 km, not \(square)")
        }
        self.innerColumns = innerColumns
        self.innerRows = innerRows
        self.square = square
    }

    /// Inner corners a side a board may have: OpenCV needs 3; more than 200 is no printable board.
    public static let sides = 3...200

    /// Parses inner corners written as `9x6` (COLUMNSxROWS, 3-200 each).
    public static func parseInnerCorners(_ text: String) throws -> (columns: Int, rows: Int) {
        let (columns, rows) = try InputRange.pair(text, in: sides, shape: "COLUMNSxROWS of inner corners", example: "9x6")
        return (columns, rows)
    }

    public var squareColumns: Int { innerColumns + 1 }
    public var squareRows: Int { innerRows + 1 }
    public var width: Length { .mm(Double(squareColumns) * square.millimetres) }
    public var height: Length { .mm(Double(squareRows) * square.millimetres) }

    /// True when the board looks the same turned 180 degrees (square counts both odd or both even), so a
    /// detector cannot tell its orientation.
    public var isSymmetric: Bool { (squareColumns + squareRows) % 2 == 0 }

    /// "9x6 inner corners (10x7 squares of 25 mm)".
    public var summary: String {
        "\(innerColumns)x\(innerRows) inner corners (\(squareColumns)x\(squareRows) squares of \(square))"
    }
}

/// The board a camera is calibrated from: a plain chessboard, which is used only when seen whole, or a
/// ChArUco board, whose corners carry IDs so that any part of it seen counts.
public enum CalibrationTarget: Equatable, Sendable {
    case checkerboard(Checkerboard)
    case charuco(CharucoBoard)

    /// Inner corners (where four squares meet) along a row and down a column.
    public var innerColumns: Int {
        switch self {
        case .checkerboard(let board): return board.innerColumns
        case .charuco(let board): return board.squaresX - 1
        }
    }

    public var innerRows: Int {
        switch self {
        case .checkerboard(let board): return board.innerRows
        case .charuco(let board): return board.squaresY - 1
        }
    }

    public var square: Length {
        switch self {
        case .checkerboard(let board): return board.square
        case .charuco(let board): return board.square
        }
    }

    /// Corner `id` (row by row from the top left, OpenCV's order for both kinds) in the board's frame,
    /// millimetres, z = 0: a chessboard's from its first inner corner, as calibrateCamera takes them; a
    /// ChArUco board's from its outer corner, as OpenCV's CharucoBoard gives them.
    public func point(of id: Int) -> (Double, Double, Double) {
        let s = square.millimetres
        let x = Double(id % innerColumns), y = Double(id / innerColumns)
        switch self {
        case .checkerboard: return (x * s, y * s, 0)
        case .charuco: return ((x + 1) * s, (y + 1) * s, 0)
        }
    }

    public var summary: String {
        switch self {
        case .checkerboard(let board): return board.summary
        case .charuco(let board): return "ChArUco " + board.summary
        }
    }

    /// The kind as board specs name it.
    public var kind: String {
        switch self {
        case .checkerboard: return "checkerboard"
        case .charuco: return "charuco"
        }
    }
}

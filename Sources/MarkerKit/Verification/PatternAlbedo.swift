/// Reflectance of a target at a point of its own plane: 0 black ink, 1 white paper, nil off the target.
struct PatternAlbedo {
    let pattern: TargetPattern
    private let cells: [Bool]
    /// Cells along a marker's side, border included (7 for the 5x5 codes).
    private let grid: Int
    private let half: Double, cell: Double, paper: Double
    private let squareColumns: Int, squareRows: Int, square: Double

    init(_ pattern: TargetPattern) {
        self.pattern = pattern
        switch pattern {
        case .marker(let id, let side, let margin, let dictionary):
            cells = MarkerDictionary.named(dictionary).bits(for: id).printedCells
            grid = 7
            half = side / 2
            cell = side / 7
            paper = half + margin
            (squareColumns, squareRows, square) = (0, 0, 0)
        case .foreignMarker(let data, let n, let side, let margin):
            grid = n + 2
            cells = (0..<grid * grid).map { i in
                let x = i % (n + 2) - 1, y = i / (n + 2) - 1
                return x >= 0 && y >= 0 && x < n && y < n && data[y * n + x]
            }
            half = side / 2
            cell = side / Double(n + 2)
            paper = half + margin
            (squareColumns, squareRows, square) = (0, 0, 0)
        case .checkerboard(let board):
            cells = []
            grid = 0
            (half, cell, paper) = (0, 0, 0)
            squareColumns = board.squareColumns
            squareRows = board.squareRows
            square = board.square.millimetres
        }
    }

    @inline(__always)
    func value(_ u: Double, _ v: Double) -> Double? {
        switch pattern {
        case .marker, .foreignMarker:
            guard abs(u) <= paper, abs(v) <= paper else { return nil }
            let column = Int(((u + half) / cell).rounded(.down)), row = Int(((half - v) / cell).rounded(.down))
            guard column >= 0, column < grid, row >= 0, row < grid else { return 1 }
            return cells[row * grid + column] ? 1 : 0
        case .checkerboard:
            // Squares i = 0..<columns from u = -square; a white border of one square around them.
            let i = Int((u / square).rounded(.down)) + 1, j = Int((v / square).rounded(.down)) + 1
            guard i >= -1, i <= squareColumns, j >= -1, j <= squareRows else { return nil }
            guard i >= 0, i < squareColumns, j >= 0, j < squareRows else { return 1 }
            return (i + j) % 2 == 0 ? 0 : 1
        }
    }
}

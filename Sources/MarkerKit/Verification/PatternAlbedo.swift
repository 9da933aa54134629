/// Reflectance of a target at a point of its own plane: 0 black ink, 1 white paper, nil off the target.
struct PatternAlbedo {
    let pattern: TargetPattern
    /// Marker cells (true = white), or text dots (true = ink), row-major from the top.
    private var cells: [Bool] = []
    /// Cells along a marker's side, border included (7 for the 5x5 codes).
    private var grid = 0
    private var half = 0.0, cell = 0.0, paper = 0.0
    private var squareColumns = 0, squareRows = 0, square = 0.0
    /// Patches and text: columns and rows (of patches, or of dots), half the width and height, the patch
    /// or dot size, the gap between patches, their levels or the ink's.
    private var columns = 0, rows = 0, halfWidth = 0.0, halfHeight = 0.0, step = 0.0, gap = 0.0
    private var levels: [Double] = []
    /// ChArUco: each square's marker cells (empty for a black square), row-major by square, and the
    /// marker's inset from its square's edge.
    private var squareCells: [[Bool]] = []
    private var inset = 0.0

    init(_ pattern: TargetPattern) {
        self.pattern = pattern
        switch pattern {
        case .marker(let id, let side, let margin, let dictionary):
            let bits = MarkerDictionary.named(dictionary).bits(for: id)
            cells = bits.printedCells
            grid = bits.side + 2
            half = side / 2
            cell = side / Double(grid)
            paper = half + margin
        case .foreignMarker(let data, let n, let side, let margin):
            grid = n + 2
            cells = (0..<grid * grid).map { i in
                let x = i % (n + 2) - 1, y = i / (n + 2) - 1
                return x >= 0 && y >= 0 && x < n && y < n && data[y * n + x]
            }
            half = side / 2
            cell = side / Double(n + 2)
            paper = half + margin
        case .checkerboard(let board):
            squareColumns = board.squareColumns
            squareRows = board.squareRows
            square = board.square.millimetres
        case .charuco(let board):
            squareColumns = board.squaresX
            squareRows = board.squaresY
            square = board.square.millimetres
            grid = board.dictionary.markerSize + 2
            cell = board.marker.millimetres / Double(grid)
            inset = (square - board.marker.millimetres) / 2
            squareCells = [[Bool]](repeating: [], count: squareColumns * squareRows)
            for marker in board.markers {
                squareCells[marker.row * squareColumns + marker.column] = board.dictionary.bits(for: marker.id).printedCells
            }
        case .patches(let c, let r, let patch, let gap, let levels):
            (columns, rows, step, self.gap, self.levels) = (c, r, patch, gap, levels)
            halfWidth = (Double(c) * (patch + gap) + gap) / 2
            halfHeight = (Double(r) * (patch + gap) + gap) / 2
        case .text(let lines, let height, let ink):
            let dots = DotFont.dots(lines)
            cells = dots.ink
            (columns, rows, step, levels) = (dots.columns, dots.rows, height / 7, [ink])
            halfWidth = Double(dots.columns) * step / 2
            halfHeight = Double(dots.rows) * step / 2
        case .paper(let width, let height):
            (halfWidth, halfHeight) = (width / 2, height / 2)
        }
    }

    /// The rectangle outside which `value` is nil: u from minU to maxU, v from minV to maxV (mm).
    var extent: (minU: Double, maxU: Double, minV: Double, maxV: Double) {
        switch pattern {
        case .marker, .foreignMarker: return (-paper, paper, -paper, paper)
        case .checkerboard: return (-2 * square, Double(squareColumns) * square, -2 * square, Double(squareRows) * square)
        case .charuco: return (-square / 2, (Double(squareColumns) + 0.5) * square, -square / 2, (Double(squareRows) + 0.5) * square)
        case .patches, .text, .paper: return (-halfWidth, halfWidth, -halfHeight, halfHeight)
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
        case .charuco:
            guard u >= -square / 2, v >= -square / 2, u <= (Double(squareColumns) + 0.5) * square,
                  v <= (Double(squareRows) + 0.5) * square else { return nil }
            let i = Int((u / square).rounded(.down)), j = Int((v / square).rounded(.down))
            guard i >= 0, i < squareColumns, j >= 0, j < squareRows else { return 1 }
            let cells = squareCells[j * squareColumns + i]
            guard !cells.isEmpty else { return 0 }
            // Marker cells from the top-left of the printed marker, rows down the board.
            let column = Int(((u - Double(i) * square - inset) / cell).rounded(.down))
            let row = Int(((v - Double(j) * square - inset) / cell).rounded(.down))
            guard column >= 0, column < grid, row >= 0, row < grid else { return 1 }
            return cells[row * grid + column] ? 1 : 0
        case .patches:
            guard abs(u) <= halfWidth, abs(v) <= halfHeight else { return nil }
            let x = u + halfWidth - gap, y = halfHeight - v - gap, pitch = step + gap
            let column = Int((x / pitch).rounded(.down)), row = Int((y / pitch).rounded(.down))
            guard column >= 0, column < columns, row >= 0, row < rows,
                  x - Double(column) * pitch < step, y - Double(row) * pitch < step else { return 1 }
            let k = row * columns + column
            return k < levels.count ? levels[k] : 1
        case .text:
            guard abs(u) <= halfWidth, abs(v) <= halfHeight else { return nil }
            let column = min(columns - 1, Int(((u + halfWidth) / step).rounded(.down)))
            let row = min(rows - 1, Int(((halfHeight - v) / step).rounded(.down)))
            return cells[row * columns + column] ? levels[0] : 1
        case .paper:
            guard abs(u) <= halfWidth, abs(v) <= halfHeight else { return nil }
            return 1
        }
    }
}

/// Stage 7: the cells of an unwarped square (the code and its one-cell border: 7x7 for a 5x5 code, 6x6 to
/// 9x9 for 4x4 to 7x7 ones) read as black or white (the middle of each cell, by majority against the Otsu
/// threshold), and the black border checked.
public enum CellSampler {
    /// The share of light pixels in the middle of each of the side² cells, row-major; a fixed-size value,
    /// so reading a candidate allocates nothing.
    public struct Grid: Sendable {
        public var fractions = InlineArray<81, Double>(repeating: 0)
        /// Cells per side, border included: the marker size + 2.
        public var side: Int

        public init(side: Int = 7) {
            precondition((6...9).contains(side), "a grid has 6 to 9 cells a side, border included")
            self.side = side
        }

        /// Cell i (row-major) reads white.
        public func isWhite(_ index: Int) -> Bool { fractions[index] > 0.5 }

        /// The cells of the border ring: 24 for a 5x5 code.
        public var borderCells: Int { 4 * (side - 1) }

        /// How many of the border cells read white.
        public var borderErrors: Int {
            var errors = 0
            for i in 0..<side * side {
                let x = i % side, y = i / side
                if (x == 0 || y == 0 || x == side - 1 || y == side - 1) && isWhite(i) { errors += 1 }
            }
            return errors
        }

        /// How surely the data cells were read: 1 when every cell is all light or all dark, 0 when one is
        /// half and half.
        public var confidence: Double {
            var least = 1.0
            for y in 1...side - 2 { for x in 1...side - 2 { least = min(least, abs(fractions[y * side + x] - 0.5) * 2) } }
            return least
        }

        /// The data cells inside the border.
        public var data: MarkerBits {
            var raw: UInt64 = 0
            let n = side - 2
            for y in 1...n { for x in 1...n where isWhite(y * side + x) { raw |= 1 << UInt64((y - 1) * n + (x - 1)) } }
            return MarkerBits(raw: raw, side: n)
        }

        /// The side² cells, row-major, true = white.
        public var cells: [Bool] { (0..<side * side).map(isWhite) }
    }

    /// The cells, row-major, true = white.
    public static func cells(of square: GrayImage, threshold: Int, pixelsPerCell: Int, marginRate: Double) -> [Bool] {
        grid(of: square, threshold: threshold, pixelsPerCell: pixelsPerCell, marginRate: marginRate).cells
    }

    /// The share of light pixels in the middle of each cell (the square is `Grid.side` cells wide).
    public static func grid(of square: GrayImage, threshold: Int, pixelsPerCell: Int, marginRate: Double) -> Grid {
        let margin = Int((Double(pixelsPerCell) * marginRate).rounded())
        let inner = pixelsPerCell - 2 * margin
        let side = square.width / pixelsPerCell
        var grid = Grid(side: side)
        square.pixels.withUnsafeBufferPointer { pixels in
            for index in 0..<side * side {
                let cx = index % side, cy = index / side
                var light = 0
                for y in (cy * pixelsPerCell + margin)..<(cy * pixelsPerCell + margin + inner) {
                    for x in (cx * pixelsPerCell + margin)..<(cx * pixelsPerCell + margin + inner)
                    where Int(pixels[y * square.width + x]) > threshold {
                        light += 1
                    }
                }
                grid.fractions[index] = Double(light) / Double(inner * inner)
            }
        }
        return grid
    }

    /// Cells per side of a square list of cells.
    private static func side(_ cells: [Bool]) -> Int {
        guard let side = (6...9).first(where: { $0 * $0 == cells.count }) else {
            preconditionFailure("a grid has 36, 49, 64 or 81 cells, not \(cells.count)")
        }
        return side
    }

    /// How many of the border cells read white.
    public static func borderErrors(_ cells: [Bool]) -> Int {
        let n = side(cells)
        return (0..<n * n).filter { i in
            let x = i % n, y = i / n
            return (x == 0 || y == 0 || x == n - 1 || y == n - 1) && cells[i]
        }.count
    }

    /// The data cells inside the border.
    public static func data(_ cells: [Bool]) -> MarkerBits {
        let n = side(cells)
        return MarkerBits(cells: (1...n - 2).flatMap { y in (1...n - 2).map { x in cells[y * n + x] } })
    }
}

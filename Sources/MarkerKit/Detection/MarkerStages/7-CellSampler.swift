/// Stage 7: the 7x7 cells of an unwarped square read as black or white (the middle of each cell, by
/// majority against the Otsu threshold), and the black border checked.
public enum CellSampler {
    /// The share of light pixels in the middle of each of the 49 cells, row-major; a fixed-size value,
    /// so reading a candidate allocates nothing.
    public struct Grid: Sendable {
        public var fractions = InlineArray<49, Double>(repeating: 0)

        public init() {}

        /// Cell i (row-major) reads white.
        public func isWhite(_ index: Int) -> Bool { fractions[index] > 0.5 }

        /// How many of the 24 border cells read white.
        public var borderErrors: Int {
            var errors = 0
            for i in 0..<49 {
                let x = i % 7, y = i / 7
                if (x == 0 || y == 0 || x == 6 || y == 6) && isWhite(i) { errors += 1 }
            }
            return errors
        }

        /// How surely the data cells were read: 1 when every cell is all light or all dark, 0 when one is
        /// half and half.
        public var confidence: Double {
            var least = 1.0
            for y in 1...5 { for x in 1...5 { least = min(least, abs(fractions[y * 7 + x] - 0.5) * 2) } }
            return least
        }

        /// The 5x5 data cells inside the border.
        public var data: MarkerBits {
            var raw: UInt32 = 0
            for y in 1...5 { for x in 1...5 where isWhite(y * 7 + x) { raw |= 1 << UInt32((y - 1) * 5 + (x - 1)) } }
            return MarkerBits(raw: raw)
        }

        /// The 49 cells, row-major, true = white.
        public var cells: [Bool] { (0..<49).map(isWhite) }
    }

    /// The 49 cells, row-major, true = white.
    public static func cells(of square: GrayImage, threshold: Int, pixelsPerCell: Int, marginRate: Double) -> [Bool] {
        grid(of: square, threshold: threshold, pixelsPerCell: pixelsPerCell, marginRate: marginRate).cells
    }

    /// The share of light pixels in the middle of each cell.
    public static func grid(of square: GrayImage, threshold: Int, pixelsPerCell: Int, marginRate: Double) -> Grid {
        let margin = Int((Double(pixelsPerCell) * marginRate).rounded())
        let inner = pixelsPerCell - 2 * margin
        var grid = Grid()
        square.pixels.withUnsafeBufferPointer { pixels in
            for index in 0..<49 {
                let cx = index % 7, cy = index / 7
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

    /// How many of the 24 border cells read white.
    public static func borderErrors(_ cells: [Bool]) -> Int {
        (0..<49).filter { i in
            let x = i % 7, y = i / 7
            return (x == 0 || y == 0 || x == 6 || y == 6) && cells[i]
        }.count
    }

    /// The 5x5 data cells inside the border.
    public static func data(_ cells: [Bool]) -> MarkerBits {
        MarkerBits(cells: (1...5).flatMap { y in (1...5).map { x in cells[y * 7 + x] } })
    }
}

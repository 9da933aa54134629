/// Stage 7: the 7x7 cells of an unwarped square read as black or white (the middle of each cell, by
/// majority against the Otsu threshold), and the black border checked.
public enum CellSampler {
    /// The 49 cells, row-major, true = white.
    public static func cells(of square: GrayImage, threshold: Int, pixelsPerCell: Int, marginRate: Double) -> [Bool] {
        lightFractions(of: square, threshold: threshold, pixelsPerCell: pixelsPerCell, marginRate: marginRate).map { $0 > 0.5 }
    }

    /// The share of light pixels in the middle of each of the 49 cells, row-major.
    public static func lightFractions(of square: GrayImage, threshold: Int, pixelsPerCell: Int, marginRate: Double) -> [Double] {
        let margin = Int((Double(pixelsPerCell) * marginRate).rounded())
        let inner = pixelsPerCell - 2 * margin
        return (0..<49).map { index in
            let cx = index % 7, cy = index / 7
            var light = 0
            for y in (cy * pixelsPerCell + margin)..<(cy * pixelsPerCell + margin + inner) {
                for x in (cx * pixelsPerCell + margin)..<(cx * pixelsPerCell + margin + inner)
                where Int(square.pixels[y * square.width + x]) > threshold {
                    light += 1
                }
            }
            return Double(light) / Double(inner * inner)
        }
    }

    /// How surely the data cells were read: 1 when every cell is all light or all dark, 0 when one is
    /// half and half.
    public static func confidence(_ fractions: [Double]) -> Double {
        (1...5).flatMap { y in (1...5).map { x in abs(fractions[y * 7 + x] - 0.5) * 2 } }.min() ?? 0
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

/// Stage 8: a sampled grid read as a marker: the border checked, the code looked up in all four
/// orientations, and the corners put in the marker's own order (top-left, top-right, bottom-right,
/// bottom-left as printed), as OpenCV's aruco gives them.
public enum CodeReader {
    public static func read(cells: [Bool], quad: Quad, dictionary: MarkerDictionary,
                            parameters: DetectorParameters) -> MarkerDetection? {
        read(data: CellSampler.data(cells), borderErrors: CellSampler.borderErrors(cells), quad: quad, dictionary: dictionary, parameters: parameters)
    }

    /// The same from the sampled grid, with its unsure cells: a data cell read less surely than
    /// `minCellConfidence` is unknown (an erasure). Up to `maxUnsureCells` of them are allowed, or as many
    /// as the dictionary's codes are far enough apart for (`MarkerDictionary.erasableCells`) when every sure
    /// cell agrees with the code, and only when
    /// no other value of them reads as another marker or turn: the read must not depend on a coin toss.
    public static func read(grid: CellSampler.Grid, quad: Quad, dictionary: MarkerDictionary,
                            parameters: DetectorParameters) -> MarkerDetection? {
        let borderErrors = grid.borderErrors
        guard Double(borderErrors) <= parameters.maxBorderErrorRate * Double(grid.borderCells) else { return nil }
        var unsure: UInt64 = 0
        let n = grid.side - 2
        for y in 1...n {
            for x in 1...n where abs(grid.fractions[y * grid.side + x] - 0.5) * 2 < parameters.minCellConfidence {
                unsure |= 1 << UInt64((y - 1) * n + (x - 1))
            }
        }
        let count = unsure.nonzeroBitCount
        guard count <= max(parameters.maxUnsureCells, dictionary.erasableCells) else { return nil }
        let data = grid.data
        guard let decoded = dictionary.decode(data) else { return nil }
        if count > parameters.maxUnsureCells {
            // Beyond the usual unsure cells (the dictionary's wider budget) every sure cell must agree with
            // the code: no correction on top (a 6x6 marker sampled as 7x7 cells read as a 5x5 ID that way).
            let expected = dictionary.bits(for: decoded.id).rotatedClockwise(decoded.rotation).raw
            guard (expected ^ data.raw) & ~unsure == 0 else { return nil }
        }
        if count > 0 {
            // Every subset of the unsure cells flipped: each must read as this marker in this turn, or as nothing.
            var subset = unsure
            while subset != 0 {
                if let other = dictionary.decode(MarkerBits(raw: data.raw ^ subset, side: data.side)), other != decoded { return nil }
                subset = (subset - 1) & unsure
            }
        }
        let r = decoded.rotation
        return MarkerDetection(id: decoded.id, quad: Quad(quad[r], quad[(r + 1) % 4], quad[(r + 2) % 4], quad[(r + 3) % 4]))
    }

    /// The same from the data bits and the count of white border cells.
    public static func read(data: MarkerBits, borderErrors: Int, quad: Quad, dictionary: MarkerDictionary,
                            parameters: DetectorParameters) -> MarkerDetection? {
        guard Double(borderErrors) <= parameters.maxBorderErrorRate * Double(4 * (data.side + 1)) else { return nil }
        guard let decoded = dictionary.decode(data) else { return nil }
        // The grid was seen turned `rotation` quarter turns clockwise, so the printed top-left corner sits
        // at the unwarped square's corner number `rotation` (corners go clockwise from the top-left).
        let r = decoded.rotation
        return MarkerDetection(id: decoded.id, quad: Quad(quad[r], quad[(r + 1) % 4], quad[(r + 2) % 4], quad[(r + 3) % 4]))
    }
}

/// Drawing markers, their labels and cut lines.
extension Canvas {
    /// The printed marker filling `square` ((side+2)² cells: 7x7 for a 5x5 code): every black cell, border
    /// included, merged row by row into runs and filled as one path.
    public func drawMarker(_ bits: MarkerBits, in square: Rect) {
        let n = bits.side + 2
        let cell = square.width / Double(n)
        let cells = bits.printedCells
        var runs: [Rect] = []
        for y in 0..<n {
            var x = 0
            while x < n {
                guard !cells[y * n + x] else { x += 1; continue }
                let start = x
                while x < n && !cells[y * n + x] { x += 1 }
                runs.append(Rect(x: square.x + Double(start) * cell, y: square.y + Double(y) * cell,
                                 width: Double(x - start) * cell, height: cell))
            }
        }
        fill(runs)
    }

    /// A dashed grey line around `box`, outside the quiet zone, to cut along.
    public func drawCutLine(around box: Rect) {
        stroke(box, lineWidth: style.cutLineWidth, color: .gray(0.55), dash: style.cutLineDash)
    }
}

/// Drawing markers, their labels and cut lines.
extension Canvas {
    /// The 7x7 printed marker filling `square`: every black cell, border included, merged row by row
    /// into runs and filled as one path.
    public func drawMarker(_ bits: MarkerBits, in square: Rect) {
        let cell = square.width / 7
        let cells = bits.printedCells
        var runs: [Rect] = []
        for y in 0..<7 {
            var x = 0
            while x < 7 {
                guard !cells[y * 7 + x] else { x += 1; continue }
                let start = x
                while x < 7 && !cells[y * 7 + x] { x += 1 }
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

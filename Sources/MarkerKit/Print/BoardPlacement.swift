/// Where a board goes on a page, and how its squares are drawn: centred across, with a white border of at least `border` mm (or the
/// page margin, when larger) on every side, the footer below the bottom border.
enum BoardPlacement {
    /// The top-left of a `width` x `height` mm board, or nil when it does not fit.
    static func origin(width: Double, height: Double, border: Double, on page: PageSize, margin: Double,
                       footer: Double) -> (x: Double, y: Double)? {
        let side = max(border, margin), top = max(border, margin)
        let bottom = page.height.millimetres - margin - footer - border
        guard width + 2 * side <= page.width.millimetres + 1e-9, bottom - top >= height - 1e-9 else { return nil }
        return ((page.width.millimetres - width) / 2, top + (bottom - top - height) / 2)
    }
}

extension Canvas {
    /// The black squares of a board of `columns` x `rows` squares of `side` mm whose top-left is at
    /// `origin`: those `isBlack(column, row)` says, filled as one path.
    func fillSquares(columns: Int, rows: Int, side: Double, origin: (x: Double, y: Double), isBlack: (Int, Int) -> Bool) {
        var blacks: [Rect] = []
        for row in 0..<rows {
            for column in 0..<columns where isBlack(column, row) {
                blacks.append(Rect(x: origin.x + Double(column) * side, y: origin.y + Double(row) * side, width: side, height: side))
            }
        }
        fill(blacks)
    }
}

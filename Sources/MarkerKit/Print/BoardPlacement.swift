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

    /// The largest square side (mm, rounded down to 0.1 mm) with which `fits(side, page)` holds on one of
    /// `pages`; 0 when none fits.
    static func largestSquare(on pages: [PageSize], fits: (Double, PageSize) -> Bool) -> Double {
        pages.map { page in
            var low = 0.0, high = page.width.millimetres + page.height.millimetres
            for _ in 0..<60 {
                let mid = (low + high) / 2
                if fits(mid, page) { low = mid } else { high = mid }
            }
            return (low * 10).rounded(.down) / 10
        }.max() ?? 0
    }

    /// The smallest preset page on which `fits(page)` holds either way up, from the same family as `page`
    /// (ISO A or US) when one there does.
    static func smallestPreset(like page: PageSize, fits: (PageSize) -> Bool) throws -> PageSize? {
        func isISO(_ p: PageSize) -> Bool { p.name.first == "A" && p.name.dropFirst().first?.isNumber == true }
        let holding = try PageSize.presets()
            .sorted { $0.width.millimetres * $0.height.millimetres < $1.width.millimetres * $1.height.millimetres }
            .filter { fits($0) || fits($0.landscape) }
        return holding.first { isISO($0) == isISO(page) } ?? holding.first
    }

    /// What to do about a board that does not fit: ": the largest square that fits is 36.2 mm, or print it on A3".
    static func fitHint(largest: Double, largestNote: String = "", bigger: PageSize?) -> String {
        var hint = largest >= 0.1 ? ": the largest square that fits is \(Length.format(largest)) mm\(largestNote)" : ""
        if let bigger { hint += (hint.isEmpty ? ": " : ", or ") + "print it on \(bigger.name)" }
        return hint
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

/// Where a board goes on a page: centred across, with a white border of at least one square (or the
/// page margin, when larger) on every side, the footer below the bottom border.
enum BoardPlacement {
    /// The top-left of a `width` x `height` mm board with `square` mm squares, or nil when it does not fit.
    static func origin(width: Double, height: Double, square: Double, on page: PageSize, margin: Double,
                       footer: Double) -> (x: Double, y: Double)? {
        let side = max(square, margin), top = max(square, margin)
        let bottom = page.height.millimetres - margin - footer - square
        guard width + 2 * side <= page.width.millimetres + 1e-9, bottom - top >= height - 1e-9 else { return nil }
        return ((page.width.millimetres - width) / 2, top + (bottom - top - height) / 2)
    }
}

/// A checkerboard centred on a page with a white border of at least one square around it (which may
/// overlap the page margin, since both are blank paper), the footer below the border.
public struct CheckerboardSheet {
    public let board: Checkerboard
    public let page: PageSize
    public let margin: Length
    /// Top-left of the board's outer edge on the page, in mm.
    public let origin: (x: Double, y: Double)

    /// Places `board` on `page`. With `orientation` nil, the page is turned when the board fits only
    /// turned. Throws, naming the largest square that fits and the smallest preset page that holds the
    /// board, when it does not fit.
    public init(board: Checkerboard, page: PageSize, margin: Length, turn orientation: Bool? = nil) throws {
        let style = try SheetStyle.bundled()
        let candidates: [PageSize]
        switch orientation {
        case .some(true): candidates = [page.landscape]
        case .some(false): candidates = [page.portrait]
        case .none: candidates = [page, page.isLandscape ? page.portrait : page.landscape]
        }
        for candidate in candidates {
            if let origin = Self.place(board, on: candidate, margin: margin.millimetres, style: style) {
                self.board = board
                self.page = candidate
                self.margin = margin
                self.origin = origin
                return
            }
        }
        var message = "a \(board.summary) board is \(board.width) x \(board.height) and does not fit on \(page) with its one-square white border and \(margin) margins"
        message += BoardPlacement.fitHint(largest: Self.largestSquare(board, on: candidates, margin: margin.millimetres, style: style),
                                          bigger: try Self.smallestPreset(holding: board, like: page, margin: margin.millimetres, style: style))
        throw MarkerKitError.invalidArgument(message)
    }

    public func spec() -> BoardSpec { BoardSpec(board: board, page: page, origin: origin) }

    public func document() -> SheetDocument {
        let board = board, page = page, origin = origin, margin = margin
        return SheetDocument(title: "MarkerKit checkerboard \(board.summary)", pages: [
            SheetDocument.Page(size: page) { canvas in
                canvas.fillSquares(columns: board.squareColumns, rows: board.squareRows, side: board.square.millimetres,
                                   origin: origin) { column, row in (row + column) % 2 == 0 }
                let description = "\(MarkerKitVersion.generator) · checkerboard \(board.summary) · board \(board.width) x \(board.height) · \(page)"
                canvas.drawFooter(page: page, margin: margin.millimetres, description: description)
            },
        ])
    }

    /// The board's origin on `page`, or nil when it does not fit.
    static func place(_ board: Checkerboard, on page: PageSize, margin: Double, style: SheetStyle) -> (x: Double, y: Double)? {
        BoardPlacement.origin(width: board.width.millimetres, height: board.height.millimetres, border: board.square.millimetres,
                              on: page, margin: margin, footer: style.footerHeight)
    }

    static func largestSquare(_ board: Checkerboard, on pages: [PageSize], margin: Double, style: SheetStyle) -> Double {
        BoardPlacement.largestSquare(on: pages) { side, page in
            guard let trial = try? Checkerboard(innerColumns: board.innerColumns, innerRows: board.innerRows, square: .mm(side)) else { return false }
            return place(trial, on: page, margin: margin, style: style) != nil
        }
    }

    /// The smallest preset page that holds `board`, from the same family as `page` (ISO A or US) when
    /// one there does.
    static func smallestPreset(holding board: Checkerboard, like page: PageSize, margin: Double,
                               style: SheetStyle) throws -> PageSize? {
        try BoardPlacement.smallestPreset(like: page) { place(board, on: $0, margin: margin, style: style) != nil }
    }
}

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
        let largest = candidates.map { Self.largestSquare(board, on: $0, margin: margin.millimetres, style: style) }.max() ?? 0
        var message = "a \(board.summary) board is \(board.width) x \(board.height) and does not fit on \(page) with its one-square white border and \(margin) margins"
        message += largest >= 0.1 ? ": the largest square that fits is \(Length.format(largest)) mm" : ""
        if let bigger = try Self.smallestPreset(holding: board, like: page, margin: margin.millimetres, style: style) {
            message += ", or print it on \(bigger.name)"
        }
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

    static func largestSquare(_ board: Checkerboard, on page: PageSize, margin: Double, style: SheetStyle) -> Double {
        var low = 0.0, high = page.width.millimetres + page.height.millimetres
        for _ in 0..<60 {
            let mid = (low + high) / 2
            guard let trial = try? Checkerboard(innerColumns: board.innerColumns, innerRows: board.innerRows, square: .mm(mid)) else {
                high = mid
                continue
            }
            if place(trial, on: page, margin: margin, style: style) != nil { low = mid } else { high = mid }
        }
        return (low * 10).rounded(.down) / 10
    }

    /// The smallest preset page that holds `board`, from the same family as `page` (ISO A or US) when
    /// one there does.
    static func smallestPreset(holding board: Checkerboard, like page: PageSize, margin: Double,
                               style: SheetStyle) throws -> PageSize? {
        func isISO(_ p: PageSize) -> Bool { p.name.first == "A" && p.name.dropFirst().first?.isNumber == true }
        let holding = try PageSize.presets()
            .sorted { $0.width.millimetres * $0.height.millimetres < $1.width.millimetres * $1.height.millimetres }
            .filter { place(board, on: $0, margin: margin, style: style) != nil || place(board, on: $0.landscape, margin: margin, style: style) != nil }
        return holding.first { isISO($0) == isISO(page) } ?? holding.first
    }
}

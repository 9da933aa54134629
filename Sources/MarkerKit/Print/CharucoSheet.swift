/// A ChArUco board centred on a page: the chessboard's black squares and a marker in every white one,
/// as OpenCV's `CharucoBoard::draw` lays them out, inside the page margins, the footer (scale bar,
/// board description) below it. Unlike a plain chessboard it needs no white border: only its inner
/// corners are used, and every marker has the white of its own square around it.
public struct CharucoSheet {
    public let board: CharucoBoard
    public let page: PageSize
    public let margin: Length
    /// Top-left of the board's outer edge on the page, in mm.
    public let origin: (x: Double, y: Double)

    /// Places `board` on `page`, turned when it fits only turned. Throws, naming the largest square that
    /// fits (the markers scaled with it) and the smallest preset page that holds the board, when it does not fit.
    public init(board: CharucoBoard, page: PageSize, margin: Length) throws {
        let style = try SheetStyle.bundled()
        let candidates = [page, page.isLandscape ? page.portrait : page.landscape]
        for candidate in candidates {
            if let origin = Self.place(board, on: candidate, margin: margin.millimetres, footer: style.footerHeight) {
                (self.board, self.page, self.margin, self.origin) = (board, candidate, margin, origin)
                return
            }
        }
        let m = margin.millimetres, footer = style.footerHeight
        let largest = BoardPlacement.largestSquare(on: candidates) { side, page in
            Self.place(columns: board.squaresX, rows: board.squaresY, side: side, on: page, margin: m, footer: footer) != nil
        }
        let markers = Length.format((largest * board.marker.millimetres / board.square.millimetres * 10).rounded(.down) / 10)
        let bigger = try BoardPlacement.smallestPreset(like: page) { Self.place(board, on: $0, margin: m, footer: footer) != nil }
        throw MarkerKitError.invalidArgument(
            "a ChArUco board of \(board.squaresX)x\(board.squaresY) squares of \(board.square) is \(board.width) x \(board.height) and does not fit on \(page) with \(margin) margins and the footer"
                + BoardPlacement.fitHint(largest: largest, largestNote: " (with \(markers) mm markers)", bigger: bigger))
    }

    static func place(_ board: CharucoBoard, on page: PageSize, margin: Double, footer: Double) -> (x: Double, y: Double)? {
        place(columns: board.squaresX, rows: board.squaresY, side: board.square.millimetres, on: page, margin: margin, footer: footer)
    }

    static func place(columns: Int, rows: Int, side: Double, on page: PageSize, margin: Double, footer: Double) -> (x: Double, y: Double)? {
        BoardPlacement.origin(width: Double(columns) * side, height: Double(rows) * side, border: 0, on: page, margin: margin, footer: footer)
    }

    public func spec() -> BoardSpec { BoardSpec(charuco: board, page: page, origin: origin) }

    public func document() -> SheetDocument {
        let board = board, page = page, origin = origin, margin = margin
        return SheetDocument(title: "MarkerKit ChArUco board \(board.summary)", pages: [
            SheetDocument.Page(size: page) { canvas in
                canvas.fillSquares(columns: board.squaresX, rows: board.squaresY, side: board.square.millimetres,
                                   origin: origin) { column, row in !board.holdsMarker(column: column, row: row) }
                for marker in board.markers {
                    let corner = marker.corners[0]
                    canvas.drawMarker(board.dictionary.bits(for: marker.id),
                                      in: Rect(x: origin.x + corner.x, y: origin.y + corner.y,
                                               width: board.marker.millimetres, height: board.marker.millimetres))
                }
                let description = "\(MarkerKitVersion.generator) · ChArUco \(board.summary) · board \(board.width) x \(board.height) · \(page)"
                canvas.drawFooter(page: page, margin: margin.millimetres, description: description)
            },
        ])
    }
}

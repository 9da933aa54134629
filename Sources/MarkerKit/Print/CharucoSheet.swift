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

    /// Places `board` on `page`, turned when it fits only turned; throws when it does not fit at all.
    public init(board: CharucoBoard, page: PageSize, margin: Length) throws {
        let style = try SheetStyle.bundled()
        for candidate in [page, page.isLandscape ? page.portrait : page.landscape] {
            if let origin = Self.place(board, on: candidate, margin: margin.millimetres, footer: style.footerHeight) {
                (self.board, self.page, self.margin, self.origin) = (board, candidate, margin, origin)
                return
            }
        }
        throw MarkerKitError.invalidArgument(
            "a ChArUco board of \(board.width) x \(board.height) does not fit on \(page) with \(margin) margins and the footer")
    }

    static func place(_ board: CharucoBoard, on page: PageSize, margin: Double, footer: Double) -> (x: Double, y: Double)? {
        BoardPlacement.origin(width: board.width.millimetres, height: board.height.millimetres, border: 0,
                              on: page, margin: margin, footer: footer)
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

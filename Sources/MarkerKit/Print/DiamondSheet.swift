/// A ChArUco diamond centred on a page as OpenCV's drawCharucoDiamond draws it (the 3x3 chessboard's black
/// corner and middle squares, a marker upright in each white square), inside the page margins, the footer
/// (scale bar, IDs and sizes) below it.
public struct DiamondSheet {
    public let diamond: CharucoDiamond
    public let page: PageSize
    public let margin: Length
    /// Top-left of the diamond's outer edge on the page, in mm.
    public let origin: (x: Double, y: Double)

    /// Places `diamond` on `page`; throws, naming the largest square that fits and the smallest preset page
    /// that holds it, when it does not fit.
    public init(diamond: CharucoDiamond, page: PageSize, margin: Length) throws {
        let style = try SheetStyle.bundled()
        let m = margin.millimetres, footer = style.footerHeight
        if let origin = CharucoSheet.place(columns: 3, rows: 3, side: diamond.square.millimetres, on: page, margin: m, footer: footer) {
            (self.diamond, self.page, self.margin, self.origin) = (diamond, page, margin, origin)
            return
        }
        let largest = BoardPlacement.largestSquare(on: [page]) { side, page in
            CharucoSheet.place(columns: 3, rows: 3, side: side, on: page, margin: m, footer: footer) != nil
        }
        let bigger = try BoardPlacement.smallestPreset(like: page) {
            CharucoSheet.place(columns: 3, rows: 3, side: diamond.square.millimetres, on: $0, margin: m, footer: footer) != nil
        }
        throw MarkerKitError.invalidArgument(
            "a diamond of \(diamond.square) squares is \(diamond.side) a side and does not fit on \(page) with \(margin) margins and the footer"
                + BoardPlacement.fitHint(largest: largest, largestNote: "", bigger: bigger))
    }

    public func document() -> SheetDocument {
        let diamond = diamond, page = page, origin = origin, margin = margin
        return SheetDocument(title: "MarkerKit ChArUco diamond \(diamond.ids.map(String.init).joined(separator: ","))", pages: [
            SheetDocument.Page(size: page) { canvas in
                canvas.fillSquares(columns: 3, rows: 3, side: diamond.square.millimetres, origin: origin) { column, row in (column + row) % 2 == 0 }
                for marker in diamond.markers {
                    let corner = marker.corners[0]
                    canvas.drawMarker(diamond.dictionary.bits(for: marker.id),
                                      in: Rect(x: origin.x + corner.x, y: origin.y + corner.y,
                                               width: diamond.marker.millimetres, height: diamond.marker.millimetres))
                }
                let description = "\(MarkerKitVersion.generator) · ChArUco diamond \(diamond.summary) · \(diamond.side) a side · \(page)"
                canvas.drawFooter(page: page, margin: margin.millimetres, description: description)
            },
        ])
    }
}

/// Printable sheets of markers: many to a page with scale bar and footer, or one marker on a page of
/// its own size.
public struct MarkerSheet {
    public var ids: [Int]
    public var side: Length
    public var page: PageSize
    public var margin: Length
    public var gap: Length
    public var labels = true
    public var cutMarks = false
    /// Mark ambiguous IDs in red (the dictionary sheet).
    public var markAmbiguous = false
    public var dictionary = MarkerDictionary.arucoOriginal

    public init(ids: [Int], side: Length, page: PageSize, margin: Length, gap: Length) {
        self.ids = ids
        self.side = side
        self.page = page
        self.margin = margin
        self.gap = gap
    }

    /// The layout these settings give; throws when the marker does not fit the page.
    public func layout() throws -> MarkerSheetLayout {
        try MarkerSheetLayout(page: page, side: side, margin: margin, gap: gap, labels: labels, footer: true,
                              style: SheetStyle.bundled())
    }

    public func document() throws -> SheetDocument {
        guard !ids.isEmpty else { throw MarkerKitError.invalidArgument("no marker IDs to print") }
        let layout = try layout()
        let pages = layout.pages(for: ids)
        let allIDs = IDRanges.describe(ids)
        let documentPages = pages.enumerated().map { number, placements in
            SheetDocument.Page(size: page) { canvas in
                for placement in placements { draw(placement, layout: layout, on: canvas) }
                let onPage = IDRanges.describe(placements.map(\.id))
                var description = "\(MarkerKitVersion.generator) · \(dictionary.name) · marker side \(side) (outer black square)"
                description += " · IDs \(onPage)" + (pages.count > 1 ? " of \(allIDs) · page \(number + 1) of \(pages.count)" : "")
                description += " · \(page)"
                if markAmbiguous { description += " · red: orientation ambiguous" }
                canvas.drawFooter(page: page, margin: margin.millimetres, description: description)
            }
        }
        return SheetDocument(title: "MarkerKit markers \(allIDs), \(side)", pages: documentPages)
    }

    /// One marker on the smallest page that holds it: the black square, the one-cell quiet zone and
    /// (with labels) a label line saying what it is.
    public static func singleMarker(id: Int, side: Length, labels: Bool, dictionary: MarkerDictionary = .arucoOriginal) throws -> SheetDocument {
        let style = try SheetStyle.bundled()
        let quiet = side.millimetres / 7
        let labelHeight = labels ? style.labelFontSize(markerSide: side.millimetres) * 1.5 : 0
        let page = PageSize(width: .mm(side.millimetres + 2 * quiet), height: .mm(side.millimetres + 2 * quiet + labelHeight))
        let layout = try MarkerSheetLayout(page: page, side: side, margin: .mm(0), gap: .mm(0), labels: labels,
                                           footer: false, style: style)
        let placement = layout.pages(for: [id])[0][0]
        var sheet = MarkerSheet(ids: [id], side: side, page: page, margin: .mm(0), gap: .mm(0))
        sheet.dictionary = dictionary
        return SheetDocument(title: "MarkerKit marker \(id), \(side)", pages: [
            SheetDocument.Page(size: page) { canvas in
                canvas.drawMarker(sheet.dictionary.bits(for: id), in: placement.marker)
                if let size = layout.labelFontSize {
                    canvas.text("ID \(id) · \(side) · \(sheet.dictionary.name)", x: placement.marker.x + side.millimetres / 2,
                                baseline: placement.labelBaseline, size: size, align: .center, maxWidth: side.millimetres)
                }
            },
        ])
    }

    func draw(_ placement: MarkerSheetLayout.Placement, layout: MarkerSheetLayout, on canvas: Canvas) {
        canvas.drawMarker(dictionary.bits(for: placement.id), in: placement.marker)
        let ambiguous = markAmbiguous && dictionary.ambiguousIDs.contains(placement.id)
        if let size = layout.labelFontSize {
            let text = ambiguous ? "ID \(placement.id) ambiguous" : "ID \(placement.id) · \(side)"
            let color = ambiguous ? canvas.style.ambiguous : .black
            canvas.text(text, x: placement.marker.x + layout.side / 2, baseline: placement.labelBaseline, size: size,
                        align: .center, maxWidth: layout.boxWidth, color: color)
        }
        if cutMarks { canvas.drawCutLine(around: placement.box) }
    }
}

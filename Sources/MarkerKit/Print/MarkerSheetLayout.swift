/// Where markers go on a page: a grid of boxes, each a marker's black square with a white quiet zone of
/// one cell on every side and its label below, boxes `gap` apart, inside the margins and above the
/// footer, centred. All lengths in millimetres.
public struct MarkerSheetLayout: Sendable {
    public struct Placement: Sendable {
        public let id: Int
        /// The outer black square.
        public let marker: Rect
        /// Marker, quiet zone and label: what a cut line goes around.
        public let box: Rect
        /// Baseline of the label, centred on the marker.
        public let labelBaseline: Double
    }

    public let page: PageSize
    public let side: Double
    public let margin: Double
    public let gap: Double
    public let labelFontSize: Double?
    public let footerHeight: Double
    public let columns: Int
    public let rows: Int

    /// One cell of the 7x7 grid: the quiet zone's width.
    public var quietZone: Double { side / 7 }
    public var labelHeight: Double { labelFontSize.map { $0 * 1.5 } ?? 0 }
    public var boxWidth: Double { side + 2 * quietZone }
    public var boxHeight: Double { side + 2 * quietZone + labelHeight }
    public var perPage: Int { columns * rows }

    /// Lays out markers of `side` on `page`; throws, naming the largest side that fits, when not one fits.
    public init(page: PageSize, side: Length, margin: Length, gap: Length, labels: Bool, footer: Bool,
                style: SheetStyle) throws {
        let fit = Self.grid(page: page, side: side.millimetres, margin: margin.millimetres, gap: gap.millimetres,
                            labels: labels, footer: footer, style: style)
        guard fit.columns >= 1, fit.rows >= 1 else {
            let largest = Self.largestSide(page: page, margin: margin.millimetres, gap: gap.millimetres,
                                           labels: labels, footer: footer, style: style)
            let advice = largest >= 0.1 ? "the largest that fits is \(Length.format(largest)) mm" : "nothing fits: use a larger page or smaller margins"
            throw MarkerKitError.invalidArgument(
                "a \(side) marker does not fit on \(page) with \(margin) margins: \(advice)")
        }
        self.page = page
        self.side = side.millimetres
        self.margin = margin.millimetres
        self.gap = gap.millimetres
        self.labelFontSize = labels ? style.labelFontSize(markerSide: side.millimetres) : nil
        self.footerHeight = footer ? style.footerHeight : 0
        self.columns = fit.columns
        self.rows = fit.rows
    }

    /// The placements of `ids`, page by page.
    public func pages(for ids: [Int]) -> [[Placement]] {
        let area = contentArea
        let usedWidth = Double(columns) * boxWidth + Double(columns - 1) * gap
        let usedHeight = Double(rows) * boxHeight + Double(rows - 1) * gap
        let left = area.x + (area.width - usedWidth) / 2
        let top = area.y + (area.height - usedHeight) / 2
        return stride(from: 0, to: ids.count, by: perPage).map { start in
            ids[start..<min(start + perPage, ids.count)].enumerated().map { index, id in
                let column = index % columns, row = index / columns
                let box = Rect(x: left + Double(column) * (boxWidth + gap), y: top + Double(row) * (boxHeight + gap),
                               width: boxWidth, height: boxHeight)
                let marker = Rect(x: box.x + quietZone, y: box.y + quietZone, width: side, height: side)
                return Placement(id: id, marker: marker, box: box,
                                 labelBaseline: marker.maxY + quietZone + (labelFontSize ?? 0))
            }
        }
    }

    /// Inside the margins, above the footer.
    public var contentArea: Rect {
        Rect(x: margin, y: margin, width: page.width.millimetres - 2 * margin,
             height: page.height.millimetres - 2 * margin - footerHeight)
    }

    static func grid(page: PageSize, side: Double, margin: Double, gap: Double, labels: Bool, footer: Bool,
                     style: SheetStyle) -> (columns: Int, rows: Int) {
        let boxWidth = side * 9 / 7
        let boxHeight = boxWidth + (labels ? style.labelFontSize(markerSide: side) * 1.5 : 0)
        let width = page.width.millimetres - 2 * margin
        let height = page.height.millimetres - 2 * margin - (footer ? style.footerHeight : 0)
        let tolerance = 1e-9
        guard width > 0, height > 0 else { return (0, 0) }
        return (Int(((width + gap) / (boxWidth + gap)) + tolerance), Int(((height + gap) / (boxHeight + gap)) + tolerance))
    }

    /// The largest marker side, rounded down to 0.1 mm, of which one fits.
    static func largestSide(page: PageSize, margin: Double, gap: Double, labels: Bool, footer: Bool,
                            style: SheetStyle) -> Double {
        var low = 0.0, high = max(page.width.millimetres, page.height.millimetres)
        for _ in 0..<60 {
            let mid = (low + high) / 2
            let fit = grid(page: page, side: mid, margin: margin, gap: gap, labels: labels, footer: footer, style: style)
            if fit.columns >= 1 && fit.rows >= 1 { low = mid } else { high = mid }
        }
        return (low * 10).rounded(.down) / 10
    }
}

extension MarkerSheetLayout {
    /// The marker map of each page of `ids`, in the page's frame (mm): origin at its top-left corner, x to
    /// the right, y down the page, z into the page.
    public func maps(for ids: [Int], dictionary: MarkerDictionary) -> [MarkerMap] {
        pages(for: ids).map { placements in
            MarkerMap(dictionary: dictionary, markers: placements.map { placement in
                let r = placement.marker
                let corners = [[r.x, r.y], [r.maxX, r.y], [r.maxX, r.maxY], [r.x, r.maxY]].map { [Length.written($0[0]), Length.written($0[1]), 0] }
                return MarkerMap.Marker(id: placement.id, corners: corners)
            }, frame: "the page \(page): origin at its top-left corner, x to the right, y down the page, z into the page")
        }
    }
}

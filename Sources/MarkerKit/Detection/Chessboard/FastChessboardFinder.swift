/// Chessboard corners at live speed. Large frames are searched small with findChessboardCorners and a
/// plain threshold: first at 320 px wide (a few tenths of a millisecond when a board fills a third of
/// the view or more), then, only when that finds nothing, at 768 px wide, which finds boards held
/// farther away. (FAST_CHECK is not used: at 768 px it refused a far board that the search finds.)
/// Corners found small are refined with cornerSubPix on the full frame (half window at most 9 px),
/// split over the cores, and the grid is accepted only when it is regular.
public struct FastChessboardFinder: Sendable {
    public let innerColumns: Int
    public let innerRows: Int
    /// Frames at most this wide are searched as they are.
    public var reduceAbove = 800
    /// Widths of the two searches on larger frames.
    public var quickWidth = 320
    public var farWidth = 768

    public init(innerColumns: Int, innerRows: Int) {
        self.innerColumns = innerColumns
        self.innerRows = innerRows
    }

    public func find(in gray: GrayImage) throws -> [Point2]? {
        guard gray.width > reduceAbove else {
            return try ChessboardDetector(innerColumns: innerColumns, innerRows: innerRows, method: .classicFastCheck).detect(in: gray)
        }
        for width in [quickWidth, farWidth] {
            let small = try Self.shrunk(gray, toWidth: width)
            guard let found = try ChessboardDetector.quickLook(in: small, columns: innerColumns, rows: innerRows) else { continue }
            // Pixel centres at integers: scale about the pixel edges, not the centres.
            let sx = Double(gray.width) / Double(small.width), sy = Double(gray.height) / Double(small.height)
            let full = found.map { Point2(x: ($0.x + 0.5) * sx - 0.5, y: ($0.y + 0.5) * sy - 0.5) }
            let refined = try ChessboardDetector.refine(full, in: gray, halfWindow: ChessboardDetector.halfWindow(for: full, columns: innerColumns, at: 9),
                                                        maxIterations: 10, epsilon: 0.01)
            // On a small frame an edge corner can be placed on the wrong square, too far for the
            // refinement to recover: such a grid is looked for again, larger.
            if Self.isRegular(refined, columns: innerColumns, rows: innerRows) { return refined }
        }
        return nil
    }

    /// Whether every corner lies where its neighbours along its row and its column put it: between two
    /// neighbours, or continuing the line of the next two at a row's or column's end, within 20% of the
    /// local corner spacing (perspective and lens change spacing far less from one square to the next).
    static func isRegular(_ corners: [Point2], columns: Int, rows: Int) -> Bool {
        func deviation(_ p: Point2, _ a: Point2, _ b: Point2, between: Bool) -> Double {
            // between: p should be the midpoint of a and b; else p should continue b -> a by one step.
            let predicted = between ? Point2(x: (a.x + b.x) / 2, y: (a.y + b.y) / 2) : Point2(x: 2 * a.x - b.x, y: 2 * a.y - b.y)
            let spacing = between ? a.distance(to: b) / 2 : a.distance(to: b)
            return p.distance(to: predicted) / max(spacing, 1e-9)
        }
        func line(_ index: (Int) -> Int, count: Int) -> Bool {
            guard count >= 3 else { return true }
            for k in 0..<count {
                let p = corners[index(k)]
                let d = k == 0 ? deviation(p, corners[index(1)], corners[index(2)], between: false)
                    : k == count - 1 ? deviation(p, corners[index(k - 1)], corners[index(k - 2)], between: false)
                    : deviation(p, corners[index(k - 1)], corners[index(k + 1)], between: true)
                if !(d <= 0.2) { return false }
            }
            return true
        }
        guard corners.count == columns * rows else { return false }
        for r in 0..<rows where !line({ r * columns + $0 }, count: columns) { return false }
        for c in 0..<columns where !line({ $0 * columns + c }, count: rows) { return false }
        return true
    }

    /// A quick bilinear shrink (aliasing is harmless for finding the board; corners are refined on the
    /// full frame).
    static func shrunk(_ gray: GrayImage, toWidth width: Int) throws -> GrayImage {
        let w = min(width, gray.width)
        var small = GrayImage.empty
        try GrayImage.resize(gray, width: w, height: max(1, gray.height * w / gray.width), bilinear: true, into: &small)
        return small
    }
}

/// Where a ChArUco board's chessboard corner should be in the image, from what was already found near it:
/// a homography fitted to the corners of the markers in the squares around the corner (the two that
/// touch it when either was read, else those up to two squares away), or to the board corners already
/// found around it. Being local, the prediction follows lens distortion and a slightly bent board, which a
/// homography over the whole board cannot.
struct CornerPrediction {
    let board: CharucoBoard
    /// Detected markers by their index on the board (ID - first ID).
    private var markers: [Int: MarkerDetection] = [:]
    /// Marker index by square, -1 for a black square.
    private let squareMarker: [Int]
    /// Each marker's corners on the board (mm), by marker index (`board.markers` builds them all anew).
    private let placedCorners: [[Point2]]

    init(board: CharucoBoard, markers detected: [MarkerDetection]) {
        self.board = board
        let placed = board.markers
        placedCorners = placed.map(\.corners)
        var bySquare = [Int](repeating: -1, count: board.squaresX * board.squaresY)
        for (index, marker) in placed.enumerated() { bySquare[marker.row * board.squaresX + marker.column] = index }
        squareMarker = bySquare
        for marker in detected { markers[marker.id - board.firstID] = marker }
    }

    /// Board position (mm) of inner corner `id`.
    func position(of id: Int) -> Point2 {
        let columns = board.squaresX - 1, s = board.square.millimetres
        return Point2(x: Double(id % columns + 1) * s, y: Double(id / columns + 1) * s)
    }

    /// The board-to-image homography around corner `id` from the markers near it, or nil when neither a
    /// marker in a square touching it nor two within two squares were read.
    func fromMarkers(corner id: Int) -> Homography? {
        let columns = board.squaresX - 1
        let cx = id % columns, cy = id / columns // the corner is the bottom-right of square (cx, cy)
        for reach in [0, 1] {
            var from: [Point2] = [], to: [Point2] = []
            for y in (cy - reach)...(cy + 1 + reach) where y >= 0 && y < board.squaresY {
                for x in (cx - reach)...(cx + 1 + reach) where x >= 0 && x < board.squaresX {
                    let index = squareMarker[y * board.squaresX + x]
                    guard index >= 0, let marker = markers[index] else { continue }
                    from += placedCorners[index]
                    to += marker.corners
                }
            }
            // Two squares away one marker's 4 corners are carried too far: on a blurred close-up (cal14 of
            // pyCamSet, σ 6-20 px) a lone marker's homography put a corner 72 px (half a square) off, and the
            // fit there found a crossing of the right colours; two markers or more hold it.
            if to.count >= (reach == 0 ? 4 : 8), let h = Homography(from: from, to: to) { return h }
        }
        return nil
    }

    /// The homography around corner `id` from corners already found within two squares of it (at least
    /// four, not on one line), or nil.
    func fromCorners(corner id: Int, found: [Int: Point2]) -> Homography? {
        let columns = board.squaresX - 1, rows = board.squaresY - 1
        let cx = id % columns, cy = id / columns
        var from: [Point2] = [], to: [Point2] = [], cells: [(Int, Int)] = []
        for y in max(0, cy - 2)...min(rows - 1, cy + 2) {
            for x in max(0, cx - 2)...min(columns - 1, cx + 2) {
                guard let p = found[y * columns + x] else { continue }
                from.append(position(of: y * columns + x))
                to.append(p)
                cells.append((x, y))
            }
        }
        guard Self.fixesAHomography(cells.map { (Double($0.0), Double($0.1)) }) else { return nil }
        return Homography(from: from, to: to)
    }

    /// Whether board points fix a homography: four or more, not all but one on a line. Three on a row and
    /// one above fix none (the solve returned one that put every corner on one pixel: on a close-up,
    /// corners near the image's edge were tried there and counted as refused).
    static func fixesAHomography(_ cells: [(Double, Double)]) -> Bool {
        guard cells.count >= 4 else { return false }
        // A line through all but one point passes through the first or the second.
        for a in 0..<2 {
            for b in cells.indices where b != a {
                let (dx, dy) = (cells[b].0 - cells[a].0, cells[b].1 - cells[a].1)
                let on = cells.filter { (($0.0 - cells[a].0) * dy - ($0.1 - cells[a].1) * dx) == 0 }.count
                if on >= cells.count - 1 { return false }
            }
        }
        return true
    }

    /// Where the corners found around corner `id` (itself left out) put it, the local side of a square
    /// there in pixels, and whether that is an interpolation; nil when too few are found to say. With all
    /// eight next to it found, a quadratic in the board position through them (interpolating): the grid's
    /// bend under a strong lens is quadratic at this scale, and true corners lie within 0.022 of a square
    /// of it on k1 = -0.4 renders (800x600, to the edge of the lens's range), OpenCV 5's corners on the
    /// GoPro photos within 0.016. Else the same quadratic through 8 or more within two squares spanning
    /// three rows and three columns, else a homography through 4 or more: these extrapolate where
    /// neighbours are missing (at the board's edge), and true corners of those renders lay up to 0.24 of
    /// a square off them.
    func fromNeighbours(corner id: Int, found: [Int: Point2]) -> (point: Point2, square: Double, interpolated: Bool)? {
        let columns = board.squaresX - 1, rows = board.squaresY - 1
        let cx = id % columns, cy = id / columns
        var cells: [(Double, Double)] = [], to: [Point2] = []
        for y in max(0, cy - 2)...min(rows - 1, cy + 2) {
            for x in max(0, cx - 2)...min(columns - 1, cx + 2) where x != cx || y != cy {
                guard let p = found[y * columns + x] else { continue }
                cells.append((Double(x - cx), Double(y - cy)))
                to.append(p)
            }
        }
        // x and y each as c0 + c1 u + c2 v + c3 u^2 + c4 u v + c5 v^2, least squares; the corner and the
        // side of a square at (0, 0).
        func quadratic(_ cells: [(Double, Double)], _ to: [Point2]) -> (Point2, Double)? {
            var ata = [Double](repeating: 0, count: 36), atx = [Double](repeating: 0, count: 6), aty = atx
            for (k, (u, v)) in cells.enumerated() {
                let row = [1, u, v, u * u, u * v, v * v]
                for a in 0..<6 {
                    atx[a] += row[a] * to[k].x
                    aty[a] += row[a] * to[k].y
                    for b in 0..<6 { ata[6 * a + b] += row[a] * row[b] }
                }
            }
            guard let cxs = LinearSystem.solve(ata, atx, size: 6), let cys = LinearSystem.solve(ata, aty, size: 6) else { return nil }
            let square = abs(cxs[1] * cys[2] - cxs[2] * cys[1]).squareRoot()
            return square > 0 ? (Point2(x: cxs[0], y: cys[0]), square) : nil
        }
        let ring = cells.indices.filter { abs(cells[$0].0) <= 1 && abs(cells[$0].1) <= 1 }
        if ring.count == 8, let (p, square) = quadratic(ring.map { cells[$0] }, ring.map { to[$0] }) { return (p, square, true) }
        let xs = Set(cells.map(\.0)).count, ys = Set(cells.map(\.1)).count
        if cells.count >= 8, xs >= 3, ys >= 3, let (p, square) = quadratic(cells, to) { return (p, square, false) }
        guard Self.fixesAHomography(cells), let h = Homography(from: cells.map { Point2(x: $0.0, y: $0.1) }, to: to) else { return nil }
        let (du, dv) = h.jacobian(at: Point2(x: 0, y: 0))
        let square = abs(du.x * dv.y - du.y * dv.x).squareRoot()
        return square > 0 ? (h.map(Point2(x: 0, y: 0)), square, false) : nil
    }

}

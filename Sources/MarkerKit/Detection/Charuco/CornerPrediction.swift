/// Where a ChArUco board's chessboard corner should be in the image, from what was already found near it:
/// a homography fitted to the corners of the markers in the squares around the corner (the two that
/// touch it when either was read, else those up to two squares away), or to the board corners already
/// found around it. Being local, the prediction follows lens distortion and a slightly bent board, which a
/// homography over the whole board cannot.
struct CornerPrediction {
    let board: CharucoBoard
    /// Detected markers by their index on the board (ID - first ID).
    private var markers: [Int: MarkerDetection] = [:]
    /// The board square each marker index sits in.
    private let markerSquares: [(column: Int, row: Int)]
    /// Marker index by square, -1 for a black square.
    private let squareMarker: [Int]

    init(board: CharucoBoard, markers detected: [MarkerDetection]) {
        self.board = board
        let placed = board.markers
        markerSquares = placed.map { ($0.column, $0.row) }
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

    /// The board-to-image homography around corner `id` from the markers near it, or nil when no marker
    /// within two squares was read.
    func fromMarkers(corner id: Int) -> Homography? {
        let columns = board.squaresX - 1
        let cx = id % columns, cy = id / columns // the corner is the bottom-right of square (cx, cy)
        for reach in [0, 1] {
            var from: [Point2] = [], to: [Point2] = []
            for y in (cy - reach)...(cy + 1 + reach) where y >= 0 && y < board.squaresY {
                for x in (cx - reach)...(cx + 1 + reach) where x >= 0 && x < board.squaresX {
                    let index = squareMarker[y * board.squaresX + x]
                    guard index >= 0, let marker = markers[index] else { continue }
                    from += board.markers[index].corners
                    to += marker.corners
                }
            }
            if !to.isEmpty, let h = Homography(from: from, to: to) { return h }
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
        guard cells.count >= 4, Set(cells.map(\.0)).count >= 2, Set(cells.map(\.1)).count >= 2 else { return nil }
        return Homography(from: from, to: to)
    }

}

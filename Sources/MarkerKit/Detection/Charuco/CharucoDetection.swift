/// What `CharucoDetector` found in one image: the board's chessboard corners, each with OpenCV's corner
/// ID and its sub-pixel position, and the board's markers it read.
public struct CharucoDetection: Sendable, Equatable {
    public struct Corner: Sendable, Equatable {
        public let id: Int
        public let point: Point2

        public init(id: Int, point: Point2) {
            self.id = id
            self.point = point
        }
    }

    /// By corner ID.
    public var corners: [Corner]
    /// The board's markers, by ID.
    public var markers: [MarkerDetection]
    /// Markers read in the image whose IDs are not on this board (another board, or another dictionary's
    /// markers read as this one's).
    public var foreignMarkers: [MarkerDetection]

    public init(corners: [Corner], markers: [MarkerDetection], foreignMarkers: [MarkerDetection]) {
        self.corners = corners
        self.markers = markers
        self.foreignMarkers = foreignMarkers
    }

    /// Whether the corners can pin a camera view: at least `minimum` of them, not all on one line of the
    /// board (a row, a column or a diagonal).
    public func isUsableView(columns: Int, minimum: Int = 6) -> Bool {
        guard corners.count >= minimum else { return false }
        let cells = corners.map { (x: $0.id % columns, y: $0.id / columns) }
        let a = cells[0]
        guard let b = cells.first(where: { $0.x != a.x || $0.y != a.y }) else { return false }
        return cells.contains { ($0.x - a.x) * (b.y - a.y) - ($0.y - a.y) * (b.x - a.x) != 0 }
    }
}

/// A marker chessboard laid out as OpenCV's `cv::aruco::CharucoBoard` lays it out: `squaresX` by
/// `squaresY` squares, a marker centred in every white square, markers numbered row by row from the top
/// left starting at `firstID`, chessboard corners (where four squares meet) numbered the same way.
///
/// Board coordinates are in millimetres with the origin at the board's top-left outer corner, x to the
/// right and y down, as OpenCV's object points (OpenCV's are in the unit of the lengths it was given).
/// Which squares are white: OpenCV 4.6 and later start the top row with a black square for any number of
/// rows; before 4.6 the pattern was anchored at the bottom row, so boards with an even number of rows
/// started the top row with a white square. `legacy` gives that older layout (OpenCV >= 4.8's
/// `setLegacyPattern(true)`); for an odd number of rows both are the same.
public struct CharucoBoard: Equatable, Sendable {
    public let squaresX: Int
    public let squaresY: Int
    public let square: Length
    public let marker: Length
    public let dictionary: MarkerDictionary
    public let firstID: Int
    public let legacy: Bool

    public init(squaresX: Int, squaresY: Int, square: Length, marker: Length, dictionary: MarkerDictionary = .arucoOriginal,
                firstID: Int = 0, legacy: Bool = false) throws {
        guard Self.sides.contains(squaresX), Self.sides.contains(squaresY) else {
            throw MarkerKitError.invalidArgument("a \(squaresX)x\(squaresY) board: a ChArUco board has 2 to 100 squares a side")
        }
        guard square.millimetres > 0, square <= Length.longest, marker.millimetres > 0, marker <= Length.longest else {
            throw MarkerKitError.invalidArgument("square and marker sizes must be greater than zero and at most 1 km, not \(square) and \(marker)")
        }
        guard marker.millimetres < square.millimetres else {
            throw MarkerKitError.invalidArgument("the marker (\(marker)) must be smaller than the square (\(square))")
        }
        let count = Self.markerCount(squaresX: squaresX, squaresY: squaresY, legacy: legacy)
        // Compared without adding to firstID, which may be any Int a user typed (Int.max overflowed here).
        let lastFirst = dictionary.count - count
        let ids = "\(dictionary.name) (0-\(dictionary.count - 1))"
        guard lastFirst >= 0 else {
            throw MarkerKitError.invalidArgument("a \(squaresX)x\(squaresY) board needs \(count) markers: they do not fit in \(ids)")
        }
        guard firstID >= 0 else {
            throw MarkerKitError.invalidArgument("the first marker ID must be 0 or more (0-\(lastFirst) for this board), not \(firstID)")
        }
        guard firstID <= lastFirst else {
            throw MarkerKitError.invalidArgument(
                "a \(squaresX)x\(squaresY) board needs \(count) markers: IDs from \(firstID) do not fit in \(ids); the first ID must be 0-\(lastFirst)")
        }
        self.squaresX = squaresX
        self.squaresY = squaresY
        self.square = square
        self.marker = marker
        self.dictionary = dictionary
        self.firstID = firstID
        self.legacy = legacy
    }

    /// Squares a side a board may have.
    public static let sides = 2...100

    /// Parses squares written as `5x7` (COLUMNSxROWS, 2-100 each).
    public static func parseSquares(_ text: String) throws -> (columns: Int, rows: Int) {
        let (columns, rows) = try InputRange.pair(text, in: sides, shape: "COLUMNSxROWS of squares", example: "5x7")
        return (columns, rows)
    }

    /// True when the square in column `x`, row `y` (from the top left) is white and holds a marker.
    public func holdsMarker(column x: Int, row y: Int) -> Bool {
        Self.holdsMarker(column: x, row: y, squaresY: squaresY, legacy: legacy)
    }

    static func holdsMarker(column x: Int, row y: Int, squaresY: Int, legacy: Bool) -> Bool {
        legacy ? (x + y + squaresY) % 2 == 0 : (x + y) % 2 == 1
    }

    static func markerCount(squaresX: Int, squaresY: Int, legacy: Bool) -> Int {
        var count = 0
        for y in 0..<squaresY { for x in 0..<squaresX where holdsMarker(column: x, row: y, squaresY: squaresY, legacy: legacy) { count += 1 } }
        return count
    }

    /// One marker of the board: its ID and its four corners in board millimetres, in the marker's own
    /// order (top-left, top-right, bottom-right, bottom-left as printed), as OpenCV's `objPoints`.
    public struct PlacedMarker: Equatable, Sendable {
        public let id: Int
        public let column: Int
        public let row: Int
        public let corners: [Point2]
    }

    /// Every marker, in ID order.
    public var markers: [PlacedMarker] {
        let s = square.millimetres, m = marker.millimetres, inset = (s - m) / 2
        var placed: [PlacedMarker] = []
        for y in 0..<squaresY {
            for x in 0..<squaresX where holdsMarker(column: x, row: y) {
                let x0 = Double(x) * s + inset, y0 = Double(y) * s + inset
                placed.append(PlacedMarker(id: firstID + placed.count, column: x, row: y, corners: [
                    Point2(x: x0, y: y0), Point2(x: x0 + m, y: y0), Point2(x: x0 + m, y: y0 + m), Point2(x: x0, y: y0 + m),
                ]))
            }
        }
        return placed
    }

    /// The chessboard corners in board millimetres, by corner ID: row by row from the top left, the
    /// (squaresX - 1) x (squaresY - 1) points where four squares meet.
    public var corners: [Point2] {
        let s = square.millimetres
        var points: [Point2] = []
        for y in 1..<squaresY { for x in 1..<squaresX { points.append(Point2(x: Double(x) * s, y: Double(y) * s)) } }
        return points
    }

    public var width: Length { .mm(Double(squaresX) * square.millimetres) }
    public var height: Length { .mm(Double(squaresY) * square.millimetres) }

    /// "5x7 squares of 40 mm (4x6 inner corners), 20 mm markers of DICT_ARUCO_ORIGINAL from ID 0".
    public var summary: String {
        "\(squaresX)x\(squaresY) squares of \(square) (\(squaresX - 1)x\(squaresY - 1) inner corners), \(marker) markers of \(dictionary.name) from ID \(firstID)\(legacy ? ", legacy layout" : "")"
    }
}

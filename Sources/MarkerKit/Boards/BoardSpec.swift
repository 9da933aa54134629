import Foundation

/// The board spec file (`board.json`) written next to every generated board, so that calibration reads
/// the board's geometry instead of having it retyped. Lengths carry their unit; MarkerKit writes mm.
/// `type` is `checkerboard` or `charuco`; a ChArUco board adds its marker size, dictionary, first ID and
/// layout (`opencv`, or `opencv-legacy` for the pre-4.6 layout of even-row boards).
public struct BoardSpec: FormattedJSONFile, Equatable, Sendable {
    public struct Count: Codable, Equatable, Sendable {
        public let columns: Int
        public let rows: Int
    }

    public struct Measure: Codable, Equatable, Sendable {
        public let value: Double
        public let unit: String
    }

    public struct Page: Codable, Equatable, Sendable {
        public let name: String
        public let width: Double
        public let height: Double
        public let unit: String
    }

    public struct Origin: Codable, Equatable, Sendable {
        public let x: Double
        public let y: Double
        public let unit: String
    }

    public static let formatName = "markerkit-board"

    public var format = BoardSpec.formatName
    public var formatVersion = 1
    public var type = "checkerboard"
    public var units = "mm"
    public var innerCorners: Count
    public var squares: Count
    public var squareSize: Measure
    /// The top-left square is black, as in OpenCV's sample pattern (white for a legacy even-row ChArUco board).
    public var firstSquare = "black"
    public var markerSize: Measure?
    public var dictionary: String?
    public var firstId: Int?
    public var layout: String?
    /// The page the board was printed on; absent from the spec of a board described, not printed (one
    /// already owned).
    public var page: Page?
    /// Top-left corner of the board's outer edge on the page, from the page's top-left (absent with `page`).
    public var boardOrigin: Origin?
    public var generator: String

    public init(board: Checkerboard, page: PageSize, origin: (x: Double, y: Double)) {
        self.init(board: board)
        self.page = Page(name: page.name, width: Length.written(page.width.millimetres), height: Length.written(page.height.millimetres), unit: "mm")
        boardOrigin = Origin(x: Length.written(origin.x), y: Length.written(origin.y), unit: "mm")
    }

    /// The spec of a chessboard described but not printed: no page.
    public init(board: Checkerboard) {
        innerCorners = Count(columns: board.innerColumns, rows: board.innerRows)
        squares = Count(columns: board.squareColumns, rows: board.squareRows)
        squareSize = Measure(value: Length.written(board.square.millimetres), unit: "mm")
        generator = MarkerKitVersion.generator
    }

    /// A ChArUco board's spec.
    public init(charuco board: CharucoBoard, page: PageSize, origin: (x: Double, y: Double)) {
        self.init(charuco: board)
        self.page = Page(name: page.name, width: Length.written(page.width.millimetres), height: Length.written(page.height.millimetres), unit: "mm")
        boardOrigin = Origin(x: Length.written(origin.x), y: Length.written(origin.y), unit: "mm")
    }

    /// The spec of a ChArUco board described but not printed: no page.
    public init(charuco board: CharucoBoard) {
        innerCorners = Count(columns: board.squaresX - 1, rows: board.squaresY - 1)
        squares = Count(columns: board.squaresX, rows: board.squaresY)
        squareSize = Measure(value: Length.written(board.square.millimetres), unit: "mm")
        generator = MarkerKitVersion.generator
        type = "charuco"
        firstSquare = board.holdsMarker(column: 0, row: 0) ? "white" : "black"
        markerSize = Measure(value: Length.written(board.marker.millimetres), unit: "mm")
        dictionary = board.dictionary.name
        firstId = board.firstID
        layout = board.legacy ? "opencv-legacy" : "opencv"
    }

    /// The spec of a board that is only rendered (`render --clip`, `render --board`): on a page of
    /// the paper the renderer draws around it (one square beyond a chessboard, half a square beyond a
    /// ChArUco board), named "rendered".
    public static func rendered(_ target: CalibrationTarget) -> BoardSpec {
        switch target {
        case .checkerboard(let board):
            let s = board.square.millimetres
            let page = PageSize(name: "rendered", width: .mm(Double(board.squareColumns + 2) * s), height: .mm(Double(board.squareRows + 2) * s))
            return BoardSpec(board: board, page: page, origin: (s, s))
        case .charuco(let board):
            let s = board.square.millimetres
            let page = PageSize(name: "rendered", width: .mm(Double(board.squaresX + 1) * s), height: .mm(Double(board.squaresY + 1) * s))
            return BoardSpec(charuco: board, page: page, origin: (s / 2, s / 2))
        }
    }

    /// The ChArUco board this spec describes.
    public func charucoBoard() throws -> CharucoBoard {
        guard type == "charuco" else {
            throw MarkerKitError.badInput("board type '\(type)' is not a ChArUco board")
        }
        guard let markerSize, let dictionary, let layout, ["opencv", "opencv-legacy"].contains(layout) else {
            throw MarkerKitError.badInput("a ChArUco board spec needs marker_size, dictionary and layout (opencv or opencv-legacy)")
        }
        let square = try Length(parsing: "\(squareSize.value)\(squareSize.unit)", what: "square_size")
        let marker = try Length(parsing: "\(markerSize.value)\(markerSize.unit)", what: "marker_size")
        return try CharucoBoard(squaresX: squares.columns, squaresY: squares.rows, square: square, marker: marker,
                                dictionary: MarkerDictionary.parse(dictionary), firstID: firstId ?? 0, legacy: layout == "opencv-legacy")
    }

    /// The board this spec describes, of either kind, for calibration.
    public func calibrationTarget() throws -> CalibrationTarget {
        type == "charuco" ? .charuco(try charucoBoard()) : .checkerboard(try checkerboard())
    }

    /// The board this spec describes.
    public func checkerboard() throws -> Checkerboard {
        guard type == "checkerboard" else {
            throw MarkerKitError.badInput(type == "charuco"
                ? "this is a ChArUco board spec: calibrating from ChArUco boards is not supported yet (print a checkerboard)"
                : "board type '\(type)' is not supported (checkerboard or charuco)")
        }
        let square = try Length(parsing: "\(squareSize.value)\(squareSize.unit)", what: "square_size")
        return try Checkerboard(innerColumns: innerCorners.columns, innerRows: innerCorners.rows, square: square)
    }

    public func encoded() throws -> Data { try JSONFile.encode(self) }

    public static let fileKind = "board spec"

    /// A board spec from a file's bytes; `source` names the file in errors.
    public static func decode(_ data: Data, source: String) throws -> BoardSpec {
        let spec = try decodeFormatted(data, source: source)
        if spec.type == "charuco" { _ = try spec.charucoBoard() } else { _ = try spec.checkerboard() }
        return spec
    }
}

import Foundation

/// `capture.json`, written beside the images `markerkit capture` saves: the board and every view with
/// the time it was taken and its measures. `markerkit calibrate` reads it (images and board at once).
public struct CaptureLog: Codable, Sendable {
    public struct Entry: Codable, Sendable {
        public let file: String
        public let time: Double
        public let parameters: CaptureAssistant.ViewParameters?
        public let sharpness: Double?
        /// The camera's focus_absolute when the view was kept (cameras with a focus control).
        public var focus: Int64?

        public init(file: String, time: Double, parameters: CaptureAssistant.ViewParameters?, sharpness: Double?, focus: Int64? = nil) {
            self.file = file
            self.time = time
            self.parameters = parameters
            self.sharpness = sharpness
            self.focus = focus
        }
    }

    public var format = "markerkit-capture"
    public var formatVersion = 1
    public var units = "mm"
    public var source: String
    public var board: BoardSpec.Count?
    public var squareSize: BoardSpec.Measure?
    /// A ChArUco board's whole spec (its markers, dictionary, layout); absent for a chessboard.
    public var charuco: BoardSpec?
    public var images: [Entry] = []
    /// The camera the views came from (absent for video files and image folders), as it was at the
    /// last view, with the range of focus the views were kept at.
    public var camera: CameraState?
    public var generator = MarkerKitVersion.generator

    public init(source: String, board: Checkerboard?) {
        self.source = source
        self.board = board.map { BoardSpec.Count(columns: $0.innerColumns, rows: $0.innerRows) }
        squareSize = board.map { BoardSpec.Measure(value: $0.square.millimetres, unit: "mm") }
    }

    public init(source: String, target: CalibrationTarget?) {
        switch target {
        case .charuco(let board):
            self.init(source: source, board: nil)
            self.board = BoardSpec.Count(columns: board.squaresX - 1, rows: board.squaresY - 1)
            squareSize = BoardSpec.Measure(value: board.square.millimetres, unit: "mm")
            charuco = BoardSpec(charuco: board, page: PageSize(name: "none", width: board.width, height: board.height), origin: (0, 0))
        case .checkerboard(let board): self.init(source: source, board: board)
        case nil: self.init(source: source, board: nil)
        }
    }

    /// The board the views show, of either kind, or nil when the log names none.
    public func calibrationTarget() throws -> CalibrationTarget? {
        if let charuco { return .charuco(try charuco.charucoBoard()) }
        return try checkerboard().map { .checkerboard($0) }
    }

    public func checkerboard() throws -> Checkerboard? {
        guard let board, let squareSize else { return nil }
        return try Checkerboard(innerColumns: board.columns, innerRows: board.rows,
                                square: try Length(parsing: "\(squareSize.value)\(squareSize.unit)", what: "square_size"))
    }

    public func encoded() throws -> Data { try JSONFile.encode(self) }

    /// Reads a capture log; the images it lists are resolved against its folder.
    public static func read(from url: URL) throws -> (log: CaptureLog, images: [URL]) {
        guard let data = try? Data(contentsOf: url) else { throw MarkerKitError.missingInput("cannot read capture log '\(url.path)'") }
        let log = try decode(data, source: url.path)
        let folder = url.deletingLastPathComponent()
        return (log, log.images.map { folder.appendingPathComponent($0.file) })
    }

    /// A capture log from a file's bytes; `source` names the file in errors.
    public static func decode(_ data: Data, source: String) throws -> CaptureLog {
        guard let log = try? JSONFile.decode(CaptureLog.self, from: data), log.format == "markerkit-capture" else {
            throw MarkerKitError.badInput("'\(source)' is not a markerkit capture log")
        }
        return log
    }
}

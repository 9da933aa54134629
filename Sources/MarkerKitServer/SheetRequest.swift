import Foundation
import MarkerKit

/// The page's sheet form: a marker sheet, a checkerboard or a ChArUco board, made by the types
/// `markerkit generate` uses and checked by the same rules (sizes need a unit, IDs must fit the
/// dictionary, the board must fit the page). The answer is the PDF, or with `spec` the board spec
/// that `calibrate --board` and `serve --board` read.
struct SheetRequest: Decodable {
    var kind: String
    /// ChArUco: squares COLUMNSxROWS; checkerboard: inner corners COLUMNSxROWS.
    var squares: String?
    var inner: String?
    var square: String?
    var marker: String?
    /// Markers: IDs (3,7,10-20) and the side of each.
    var ids: String?
    var size: String?
    var dictionary: String?
    var firstId: Int?
    var legacy: Bool?
    var page: String?
    var landscape: Bool?
    var spec: Bool?

    /// The file to send back: its name, content type and bytes.
    func make() throws -> (name: String, type: String, data: Data) {
        let plan = try self.plan()
        if spec == true {
            guard let board = plan.spec else { throw MarkerKitError.invalidArgument("a marker sheet has no board spec") }
            return ("\(plan.name).json", "application/json", try board.encoded())
        }
        return ("\(plan.name).pdf", "application/pdf", try plan.document.render(as: .pdf)[0])
    }

    /// Everything `make` checks and lays out, short of drawing: the file's name, the sheet and its board spec.
    func plan() throws -> (name: String, document: SheetDocument, spec: BoardSpec?) {
        var page = try PageSize(parsing: self.page ?? "a4")
        if landscape == true { page = page.landscape }
        let margin = Length.mm(10)
        let dictionary = try self.dictionaryValue()
        switch kind {
        case "charuco":
            let (columns, rows) = try CharucoBoard.parseSquares(squares ?? "")
            let board = try CharucoBoard(squaresX: columns, squaresY: rows, square: try Self.length(square, what: "square"),
                                         marker: try Self.length(marker, what: "marker"), dictionary: dictionary,
                                         firstID: firstId ?? 0, legacy: legacy ?? false)
            let sheet = try CharucoSheet(board: board, page: page, margin: margin)
            return ("charuco-\(columns)x\(rows)", sheet.document(), sheet.spec())
        case "checkerboard":
            let (columns, rows) = try Checkerboard.parseInnerCorners(inner ?? "")
            let board = try Checkerboard(innerColumns: columns, innerRows: rows, square: try Self.length(square, what: "square"))
            let sheet = try CheckerboardSheet(board: board, page: page, margin: margin, turn: landscape)
            return ("checkerboard-\(columns)x\(rows)", sheet.document(), sheet.spec())
        case "markers":
            let selection = try IDSelection(parsing: ids ?? "", dictionary: dictionary)
            let kept = selection.printable(includeAmbiguous: false).kept
            guard !kept.isEmpty else { throw MarkerKitError.invalidArgument("the IDs '\(ids ?? "")' leave no marker to print") }
            var sheet = MarkerSheet(ids: kept, side: try Self.length(size, what: "marker size"), page: page, margin: margin, gap: .mm(10))
            sheet.dictionary = dictionary
            return ("markers", try sheet.document(), nil)
        default:
            throw MarkerKitError.invalidArgument("unknown sheet '\(kind)': markers, checkerboard or charuco")
        }
    }

    private func dictionaryValue() throws -> MarkerDictionary {
        guard let text = dictionary, !text.isEmpty else { return .arucoOriginal }
        guard let name = MarkerDictionary.Name(parsing: text) else {
            throw MarkerKitError.invalidArgument("unknown dictionary '\(text)': \(MarkerDictionary.Name.shortNames)")
        }
        return .named(name)
    }

    private static func length(_ text: String?, what: String) throws -> Length {
        guard let text, !text.isEmpty else { throw MarkerKitError.invalidArgument("give the \(what) with a unit, such as 40mm") }
        return try Length.positive(text, what: what)
    }
}

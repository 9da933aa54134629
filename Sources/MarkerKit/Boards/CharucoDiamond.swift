import Foundation

/// OpenCV's ChArUco diamond: a 3x3 chessboard whose four white squares hold markers, used as one large
/// target named by its four marker IDs. The markers sit in the top, left, right and bottom squares, in the
/// order of `ids` (OpenCV's Vec4i), each upright in the diamond's frame and centred in its square; the
/// black squares are the corners and the middle. The diamond's corners are its four inner chessboard
/// corners, a square of side `square`.
///
/// Diamond coordinates are in millimetres with the origin at the top-left outer corner, x right and y down,
/// as a 3x3 `CharucoBoard`'s: that board with markers 0, 1, 2, 3 is this diamond with `ids` renumbered.
public struct CharucoDiamond: Equatable, Sendable {
    public let ids: [Int]
    public let square: Length
    public let marker: Length
    public let dictionary: MarkerDictionary

    public init(ids: [Int], square: Length, marker: Length, dictionary: MarkerDictionary = .arucoOriginal) throws {
        guard ids.count == 4 else { throw MarkerKitError.invalidArgument("a diamond has 4 marker IDs, not \(ids.count)") }
        for id in ids where !dictionary.contains(id) {
            throw MarkerKitError.invalidArgument("marker ID \(id) is not in \(dictionary.name) (0-\(dictionary.count - 1))")
        }
        _ = try CharucoBoard(squaresX: 3, squaresY: 3, square: square, marker: marker, dictionary: dictionary)
        self.ids = ids
        self.square = square
        self.marker = marker
        self.dictionary = dictionary
    }

    /// The 3x3 ChArUco board with the diamond's layout, its markers numbered 0-3 for `ids[0...3]`.
    public var board: CharucoBoard {
        // Valid by construction (checked in init).
        try! CharucoBoard(squaresX: 3, squaresY: 3, square: square, marker: marker, dictionary: dictionary)
    }

    /// Every marker with its ID and its corners in diamond coordinates (mm).
    public var markers: [CharucoBoard.PlacedMarker] {
        board.markers.map { CharucoBoard.PlacedMarker(id: ids[$0.id], column: $0.column, row: $0.row, corners: $0.corners) }
    }

    /// The four inner chessboard corners in diamond coordinates (mm): top-left, top-right, bottom-right,
    /// bottom-left, as OpenCV's detectCharucoDiamond orders them.
    public var corners: [Point2] {
        let s = square.millimetres
        return [Point2(x: s, y: s), Point2(x: 2 * s, y: s), Point2(x: 2 * s, y: 2 * s), Point2(x: s, y: 2 * s)]
    }

    /// Side of the whole diamond (three squares).
    public var side: Length { .mm(3 * square.millimetres) }

    /// "45,68,28,74 (DICT_6X6_250), 40 mm squares, 24 mm markers".
    public var summary: String {
        "\(ids.map(String.init).joined(separator: ",")) (\(dictionary.name)), \(square) squares, \(marker) markers"
    }

    /// Parses four IDs written `45,68,28,74`.
    public static func parseIDs(_ text: String) throws -> [Int] {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        guard parts.count == 4, let ids = Optional(parts.compactMap { Int($0) }), ids.count == 4 else {
            throw MarkerKitError.invalidArgument("'\(text)': a diamond's IDs are four whole numbers, top,left,right,bottom, e.g. 45,68,28,74")
        }
        return ids
    }
}

import CVBridge

/// When a board spec finds nothing in a picture: what the picture does show, so that the user can mend the
/// spec. A checkerboard of another inner-corner count near the spec's (one more or fewer each way, or turned:
/// squares counted for inner corners is the usual slip); for a ChArUco board, markers of another dictionary,
/// or markers of its own dictionary that do not lie on the board the spec describes (other squares, another
/// first ID).
public enum BoardSpecHint {
    /// One line saying what `image` shows instead, nil when it shows nothing of the kind either.
    public static func line(for target: CalibrationTarget, in image: GrayImage) -> String? {
        switch target {
        case .checkerboard(let board): return checkerboardLine(board, in: image)
        case .charuco(let board): return charucoLine(board, in: image)
        }
    }

    static func checkerboardLine(_ board: Checkerboard, in image: GrayImage) -> String? {
        let (c, r) = (board.innerColumns, board.innerRows)
        var sizes: [(Int, Int)] = []
        for (dc, dr) in [(1, 1), (-1, -1), (1, 0), (0, 1), (-1, 0), (0, -1), (1, -1), (-1, 1)] where c + dc >= 3 && r + dr >= 3 {
            sizes.append((c + dc, r + dr))
        }
        // findChessboardCorners finds a board only whole and with exactly the counts asked, in either
        // orientation, so a turned spec (6x9 for 9x6) would have been found: no need to try it.
        for (columns, rows) in sizes {
            guard (try? ChessboardDetector.find(in: image, columns: columns, rows: rows, bridgeMethod: CVB_CHESSBOARD_OPENCV_FAST_CHECK,
                                                halfWindow: 0)) != nil else { continue }
            return "the picture shows a board of \(columns)x\(rows) inner corners (\(columns + 1)x\(rows + 1) squares), the spec says \(c)x\(r) "
                + "(\(c + 1)x\(r + 1) squares): a board is named by its inner corners"
        }
        return nil
    }

    static func charucoLine(_ board: CharucoBoard, in image: GrayImage) -> String? {
        let own = (try? MarkerDetector(dictionary: board.dictionary).detect(in: image)) ?? []
        let last = board.firstID + board.markers.count - 1
        if own.isEmpty {
            guard let readings = try? DictionaryHint.readings(in: image, besides: board.dictionary), let best = readings.first else { return nil }
            return "0 markers of the spec's \(board.dictionary.name), \(best.markers) of \(best.dictionary.name): the board spec's dictionary is not the board's"
        }
        let ids = Set(own.map(\.id)).sorted()
        let outside = ids.filter { $0 < board.firstID || $0 > last }
        let range = ids.count == 1 ? "ID \(ids[0])" : "IDs \(ids.first!)-\(ids.last!)"
        return "\(own.count) markers of \(board.dictionary.name) read (\(range)\(outside.isEmpty ? "" : ", \(outside.count) outside the spec's"))"
            + ", but none lies where the spec's \(board.squaresX)x\(board.squaresY) board (IDs \(board.firstID)-\(last)) puts it: "
            + "check its squares, first ID and layout (legacy or current)"
    }
}

import Foundation
import MarkerKit

extension Detect {
    /// One line per input: markers (and board corners) found, where the annotated picture went.
    static func describe(_ summary: DetectionJob.Summary) -> String {
        let ids = summary.ids.map(String.init).joined(separator: " ")
        var line = summary.frames == 1
            ? "\(summary.source): \(counted(summary.detections, "marker"))\(ids.isEmpty ? "" : ": \(ids)")"
            : "\(summary.source): \(summary.frames) frames, \(summary.detections) detections\(ids.isEmpty ? "" : ", IDs \(ids)")"
        if let corners = summary.boardCorners { line += summary.frames == 1 ? "; board corners: \(corners)" : "; \(corners) board corners" }
        if let poses = summary.mapPoses, summary.boardCorners != nil {
            // A checkerboard's pose.
            line += summary.frames == 1 ? (poses == 1 ? "; the board's pose" : "; no board pose") : "; the board's pose in \(counted(poses, "frame"))"
        } else if let poses = summary.mapPoses {
            line += summary.frames == 1 ? (poses == 1 ? "; the map's pose" : "; no marker of the map") : "; the map's pose in \(counted(poses, "frame"))"
        }
        if let diamonds = summary.diamonds {
            line += "; \(counted(diamonds.count, "diamond"))" + (diamonds.isEmpty ? "" : ": " + diamonds.map { $0.map(String.init).joined(separator: ",") }.joined(separator: " "))
        }
        if let annotated = summary.annotated { line += " -> \(annotated.relativePath)" }
        return line
    }

    /// For an image with no marker: which other dictionary reads markers there, and the option that
    /// asks for it ("0 markers of DICT_ARUCO_ORIGINAL; DICT_4X4_50 reads 12; try --dictionary 4x4_50").
    static func dictionaryHint(for item: InputCatalog.Item, _ summary: DetectionJob.Summary, asked: MarkerDictionary) -> String? {
        guard summary.detections == 0, case .image(let url) = item else { return nil }
        let readings = DictionaryHint.readings(forImageAt: url, besides: asked)
        return DictionaryHint.line(readings, asked: asked).map { "\($0); try --dictionary \(readings[0].dictionary.shortName)" }
    }

    /// What an image that gave nothing shows instead: with a board spec, the board hint (never a
    /// --dictionary hint: the spec names the dictionary); without, the dictionary hint.
    static func hint(for item: InputCatalog.Item, _ summary: DetectionJob.Summary, board: CalibrationTarget?, asked: MarkerDictionary) -> String? {
        guard let board else { return dictionaryHint(for: item, summary, asked: asked) }
        return boardHint(for: item, summary, target: board)
    }

    /// For an image where a board spec found no corner: what the image shows instead (BoardSpecHint).
    static func boardHint(for item: InputCatalog.Item, _ summary: DetectionJob.Summary, target: CalibrationTarget) -> String? {
        guard summary.boardCorners == 0, case .image(let url) = item, let image = try? GrayImage(contentsOf: url) else { return nil }
        return BoardSpecHint.line(for: target, in: image)
    }
}

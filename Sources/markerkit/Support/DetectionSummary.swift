import MarkerKit

extension Detect {
    /// One line per input: markers (and board corners) found, where the annotated picture went.
    static func describe(_ summary: DetectionJob.Summary) -> String {
        let ids = summary.ids.map(String.init).joined(separator: " ")
        var line = summary.frames == 1
            ? "\(summary.source): \(summary.detections) marker\(summary.detections == 1 ? "" : "s")\(ids.isEmpty ? "" : ": \(ids)")"
            : "\(summary.source): \(summary.frames) frames, \(summary.detections) detections\(ids.isEmpty ? "" : ", IDs \(ids)")"
        if let corners = summary.boardCorners { line += summary.frames == 1 ? "; board corners: \(corners)" : "; \(corners) board corners" }
        if let annotated = summary.annotated { line += " -> \(annotated.relativePath)" }
        return line
    }
}

/// "1 marker", "2 markers", "0 markers".
func counted(_ n: Int, _ noun: String) -> String { "\(n) \(noun)\(n == 1 ? "" : "s")" }

import Foundation
@testable import MarkerKit

/// The committed test data (see each folder's PROVENANCE.txt).
enum Fixtures {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures")
    static func url(_ path: String) -> URL { root.appendingPathComponent(path) }

    struct ExpectedMarker {
        let id: Int
        let corners: [Point2]
        let rvec: [Double]
        let tvec: [Double]
    }

    /// The ArUco library's own detections from an `expected.yml` (OpenCV FileStorage YAML).
    static func expectedMarkers(_ path: String) throws -> [ExpectedMarker] {
        let text = try String(contentsOf: url(path), encoding: .utf8)
        let blocks = text.components(separatedBy: "      id:").dropFirst()
        return blocks.map { block in
            func numbers(after key: String) -> [Double] {
                guard let range = block.range(of: key) else { return [] }
                let rest = block[range.upperBound...]
                let end = key == "corners:" ? rest.range(of: "] ]")!.upperBound : rest.range(of: "]")!.upperBound
                return rest[..<end].components(separatedBy: CharacterSet(charactersIn: "[], \n")).compactMap { Double($0) }
            }
            let id = Int(block.split(separator: "\n")[0].trimmingCharacters(in: .whitespaces))!
            let c = numbers(after: "corners:")
            return ExpectedMarker(id: id, corners: (0..<4).map { Point2(x: c[2 * $0], y: c[2 * $0 + 1]) },
                                  rvec: numbers(after: "Rvec:"), tvec: numbers(after: "Tvec:"))
        }
    }
}

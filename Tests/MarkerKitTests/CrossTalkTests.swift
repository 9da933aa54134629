import Foundation
import Testing
@testable import MarkerKit

/// No cross-talk: a detector reading one dictionary reports nothing on markers of another (the other
/// dictionaries MarkerKit reads, IDs past the end of a smaller 5x5 one, OpenCV's 4x4 and 6x6 codes).
/// MARKERKIT_CROSSTALK_RENDERS sets renders per reader and source (default 2, 12 markers each; `swift test -c release` with 300 reads 10,800 or more foreign markers per reader).
@Suite struct CrossTalkTests {
    static let renders = Int(ProcessInfo.processInfo.environment["MARKERKIT_CROSSTALK_RENDERS"] ?? "") ?? 2

    enum Source: String, CaseIterable {
        case otherFamily, larger5x5, fourByFour, sixBySix
    }

    /// The k-th foreign pattern of render r for `reader`, or nil when that source has nothing foreign to it.
    /// Renders differ in their codes (13 apart), not only in where the markers are.
    static func pattern(_ source: Source, for reader: MarkerDictionary, k: Int, render r: Int) throws -> TargetPattern? {
        try pattern(source, for: reader, index: 221 + r * 13 + k * 37)
    }

    /// The foreign pattern number `index` (taken modulo the source's size).
    static func pattern(_ source: Source, for reader: MarkerDictionary, index: Int) throws -> TargetPattern? {
        switch source {
        case .otherFamily:
            // ORIGINAL markers for a 5x5 reader, 5x5_1000 markers for the ORIGINAL reader.
            let other = reader.id == .arucoOriginal ? MarkerDictionary.dict5x5_1000 : .arucoOriginal
            return .marker(id: index % other.count, side: 50, margin: 50 / 7 * 1.5, dictionary: other.id)
        case .larger5x5:
            guard reader.id != .arucoOriginal, reader.count < 1000 else { return nil }
            return .marker(id: reader.count + index % (1000 - reader.count), side: 50, margin: 50 / 7 * 1.5, dictionary: .dict5x5_1000)
        case .fourByFour, .sixBySix:
            let opencv = source == .fourByFour ? OpenCVDictionary.dict4x4_1000 : .dict6x6_1000
            let info = try opencv.info()
            return .foreignMarker(cells: try opencv.cells(for: index % info.count), cellsPerSide: info.markerSize, side: 50, margin: 50 / 7 * 1.5)
        }
    }

    /// The reader of the pattern's own code, to show the renders are readable (else the test proves nothing).
    static func ownReader(_ pattern: TargetPattern) -> @Sendable (GrayImage) throws -> [MarkerDetection] {
        switch pattern {
        case .marker(_, _, _, let dictionary): return { try MarkerDetector(dictionary: .named(dictionary)).detect(in: $0) }
        case .foreignMarker(let cells, _, _, _):
            let opencv: OpenCVDictionary = cells.count == 16 ? .dict4x4_1000 : .dict6x6_1000
            return { try OpenCVArucoDetector(dictionary: opencv).detect(in: $0) }
        case .checkerboard, .charuco, .patches, .text, .paper: return { _ in [] }
        }
    }

    /// (The 5x5 readers; `AllDictionariesTests` mixes every dictionary.)
    @Test(arguments: MarkerDictionary.Name.allCases.filter { $0.markerSize == 5 && !$0.rawValue.contains("APRILTAG") })
    func nothingIsReadFromOtherCodes(_ name: MarkerDictionary.Name) throws {
        let reader = MarkerDictionary.named(name)
        let detector = MarkerDetector(dictionary: reader)
        let renderer = SceneRenderer()
        var shown = 0, readByOwn = 0, reported: [String] = []
        for source in Source.allCases {
            for r in 0..<Self.renders {
                let seed = UInt64(1000 * r + 17)
                guard let first = try Self.pattern(source, for: reader, k: 0, render: r) else { break }
                let scene = try BenchmarkScenes.markers(count: 12, width: 640, height: 480, seed: seed) { k in
                    try Self.pattern(source, for: reader, k: k, render: r)!
                }
                shown += 12
                let image = try renderer.render(scene)
                readByOwn += try Self.ownReader(first)(image).count
                for marker in try detector.detect(in: image) { reported.append("\(source.rawValue) render \(r): ID \(marker.id)") }
            }
        }
        #expect(shown >= 12 * 3 * Self.renders)
        #expect(Double(readByOwn) >= 0.8 * Double(shown), "their own dictionaries read \(readByOwn) of \(shown)")
        print("cross-talk: \(reader) read \(reported.count) of \(shown) foreign markers; their own dictionaries read \(readByOwn)")
        #expect(reported.isEmpty, "\(reader) read \(reported.count) of \(shown) foreign markers: \(reported.prefix(5))")
    }
}

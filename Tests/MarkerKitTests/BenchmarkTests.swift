import Foundation
import Testing
@testable import MarkerKit

/// What `bench` measures, apart from its times (speed is never asserted in a unit test).
@Suite struct BenchmarkTests {
    /// `bench --dictionary 5x5_100`: the rendered frames hold DICT_5X5_100 markers and every contender reads
    /// that dictionary (read as DICT_ARUCO_ORIGINAL they would give no marker), and the report names it.
    @Test func renderedCasesUseTheChosenDictionary() throws {
        var benchmark = DetectorBenchmark(quick: true)
        benchmark.includeChessboards = false
        benchmark.includePhone = false
        benchmark.onlySizes = [(640, 480)]
        benchmark.repeatsOverride = 1
        benchmark.dictionary = .dict5x5_100
        let report = try benchmark.run(video: nil)
        #expect(report.dictionary == "DICT_5X5_100")
        let tenMarkers = try #require(report.markerCases.first { $0.markers == 10 })
        for contender in ["markerkit", "opencv"] {
            #expect((tenMarkers.recall[contender] ?? 0) >= 0.9, "\(contender): \(tenMarkers.recall)")
        }
        let scene = try BenchmarkScenes.markers(count: 10, width: 640, height: 480, seed: 640 * 31 + 10, dictionary: .dict5x5_100)
        let image = try SceneRenderer().render(scene)
        #expect(try MarkerDetector(dictionary: .arucoOriginal).detect(in: image).isEmpty)
        #expect(report.table.contains("rendered cases: DICT_5X5_100"))
        // The MJPEG rows: both sizes, both contenders decoding and reading the chosen dictionary.
        #expect(report.mjpegCases.map(\.width) == [640, 1920])
        for mjpeg in report.mjpegCases {
            #expect(Set(mjpeg.milliseconds.keys) == ["markerkit", "opencv", "markerkit-decode", "opencv-decode"])
            for contender in ["markerkit", "opencv"] {
                #expect((mjpeg.recall[contender] ?? 0) >= 0.9, "\(mjpeg.name) \(contender): \(mjpeg.recall)")
            }
        }
        #expect(report.table.contains("MJPEG camera frames"))
    }
}

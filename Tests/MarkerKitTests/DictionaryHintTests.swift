import Foundation
import Testing
@testable import MarkerKit

/// `detect`'s hint: on a frame with no marker of the dictionary asked for, the other dictionaries that
/// read markers there.
@Suite struct DictionaryHintTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures")

    /// A real GoPro photo of a DICT_4X4_250 ChArUco pattern (81 markers): no ARUCO_ORIGINAL marker, and the
    /// 4x4 list named first with at least as many markers as OpenCV's detector reads as DICT_4X4_250.
    @Test func aRealFourByFourPhotoNamesTheFourByFourDictionary() throws {
        let image = try GrayImage(contentsOf: Self.fixtures.appendingPathComponent("charuco-real/nbhr_pycalib_gopro/00000001.jpg"))
        #expect(try MarkerDetector(dictionary: .arucoOriginal).detect(in: image).isEmpty)
        let readings = try DictionaryHint.readings(in: image, besides: .arucoOriginal)
        let openCV = try OpenCVArucoDetector(dictionary: OpenCVDictionary(.dict4x4_250)).detect(in: image).count
        let line = DictionaryHint.line(readings, asked: .arucoOriginal)
        print("hint on the 4x4 photo: \(line ?? "none"); OpenCV reads \(openCV) as DICT_4X4_250")
        #expect(readings.first?.dictionary.markerSize == 4 && readings.first?.dictionary.id.codeList == "4X4")
        #expect((readings.first?.markers ?? 0) >= openCV, "\(readings)")
        #expect(line?.hasPrefix("0 markers of DICT_ARUCO_ORIGINAL; DICT_4X4_") == true)
    }

    /// Two real photos of tag36h11 tags (a Duckiebot's camera, BSD-2; AprilTags.jl's test photo, MIT): the
    /// default dictionary reads none, the hint names DICT_APRILTAG_36h11 with every tag, and that dictionary
    /// reads exactly the IDs OpenCV 5.0's ArucoDetector reads there (PROVENANCE.txt).
    @Test(arguments: [("duckietown-36h11.png", [22, 24, 58, 85, 144, 198]), ("apriltags-jl-36h11.jpg", [5, 6, 9])])
    func aRealAprilTagPhotoNamesTheAprilTagDictionary(file: String, openCV: [Int]) throws {
        let image = try GrayImage(contentsOf: Self.fixtures.appendingPathComponent("dictionary-hint/\(file)"))
        let tags = MarkerDictionary.named(.aprilTag36h11)
        #expect(try MarkerDetector(dictionary: .arucoOriginal).detect(in: image).isEmpty)
        let readings = try DictionaryHint.readings(in: image, besides: .arucoOriginal)
        print("hint on \(file): \(DictionaryHint.line(readings, asked: .arucoOriginal) ?? "none")")
        #expect(readings.first?.dictionary == tags && readings.first?.markers == openCV.count, "\(readings)")
        #expect(try MarkerDetector(dictionary: tags).detect(in: image).map(\.id) == openCV)
    }

    /// A render of AprilTag 36h11 markers read as the default dictionary: DICT_APRILTAG_36h11 named first;
    /// a frame of plain paper: no hint.
    @Test func anAprilTagRenderNamesItsDictionaryAndPaperNothing() throws {
        let tags = MarkerDictionary.named(.aprilTag36h11)
        let image = try SceneRenderer().render(BenchmarkScenes.markers(count: 8, width: 640, height: 480, seed: 5, dictionary: tags))
        let readings = try DictionaryHint.readings(in: image, besides: .arucoOriginal)
        print("hint on the AprilTag render: \(DictionaryHint.line(readings, asked: .arucoOriginal) ?? "none")")
        #expect(readings.first?.dictionary == tags)
        #expect((readings.first?.markers ?? 0) >= 6)
        let paper = try SceneRenderer().render(BenchmarkScenes.markers(count: 0, width: 320, height: 240, seed: 5, dictionary: tags))
        let none = try DictionaryHint.readings(in: paper, besides: .arucoOriginal)
        #expect(none.isEmpty && DictionaryHint.line(none, asked: .arucoOriginal) == nil)
    }
}

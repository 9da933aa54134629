import Foundation
import Testing
@testable import MarkerKit
@testable import MarkerKitFuzz

/// The fuzz targets' committed corpus, replayed in every test run: each seed (a real file of its format)
/// is accepted and survives the target's checks (usable values, an unchanged write-and-read round trip),
/// and each input the fuzzer once found crashing (`found-*`) is now refused with an error.
@Suite struct FuzzCorpusTests {
    static let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("FuzzCorpus")

    @Test(arguments: FuzzTarget.allCases)
    func seedsAreAcceptedAndFindingsRefused(_ target: FuzzTarget) throws {
        let folder = Self.corpus.appendingPathComponent(target.rawValue)
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        #expect(files.filter { !$0.hasPrefix("found-") }.count >= 2, "\(target.rawValue) needs seeds")
        for file in files {
            let data = try Data(contentsOf: folder.appendingPathComponent(file))
            let accepted = target.check(data)
            if file.hasPrefix("found-") {
                #expect(!accepted, "\(target.rawValue)/\(file) should be refused")
            } else if !(target == .anyCalibration && file.hasPrefix("colmap")) { // cameras.txt is known by its extension only
                #expect(accepted, "\(target.rawValue)/\(file) should be accepted")
            }
        }
    }

    /// Found by fuzzing: OpenCV's `<<` took a string starting with `}` as the end of a structure and
    /// crashed while writing; text values must come back as they were, whatever their first character.
    @Test(arguments: ["}m", "{x", "[a", "]", "mm"])
    func textThatLooksLikeStructureIsWrittenAsText(_ units: String) throws {
        let yaml = """
        %YAML:1.0
        ---
        nframes: 10
        units: "\(units)"
        camera_matrix: !!opencv-matrix
           rows: 3
           cols: 3
           dt: d
           data: [ 374., 0., 144., 0., 374., 177., 0., 0., 1. ]
        avg_reprojection_error: 0.5
        """
        let calibration = try CalibrationFormat.opencvYAML.decode(Data(yaml.utf8), name: "x")
        #expect(calibration.provenance?.units == units)
        for format in [CalibrationFormat.opencvYAML, .opencvXML, .json] {
            let back = try format.decode(try format.encode(calibration), name: "x")
            #expect(back.provenance?.units == units, "\(format.rawValue)")
        }
    }

    /// Found by fuzzing: OpenCV 4.6's XML reader dereferences null on a bare `<?xml version=`, and a NUL byte
    /// ended the text OpenCV saw early; both are refused before OpenCV reads anything.
    @Test(arguments: ["<?xml version=", "<?xml version=\"1.0\"?>\n<opencv_storage><camera_matrix>", "%YAML:1.0\n---\nnframes: 1\u{0}\n"])
    func malformedTextNeverReachesOpenCV(_ text: String) {
        #expect(throws: MarkerKitError.self) { try CalibrationFormat.opencvXML.decode(Data(text.utf8), name: "x") }
    }
}

import Foundation
import Testing
@testable import MarkerKit

/// A calibration used on pictures of another size than its own: the same aspect ratio gets the
/// intrinsics scaled, with one note per size; another aspect ratio is refused for that file (exit 65).
/// Before, `detect --calibration` computed poses from the unscaled intrinsics without a word, and
/// `undistort` refused every other size.
@Suite struct CalibrationSizeCLITests {
    /// ArUco's test photo (640x480) at half size (320x240, the same aspect) and cropped to 640x360 (16:9),
    /// with its camera's calibration (640x480) as cam.yml.
    static func workspace() throws -> URL {
        let dir = try makeDirectory()
        let single = CaptureCLITests.single
        try FileManager.default.copyItem(at: single.appendingPathComponent("intrinsics.yml"), to: dir.appendingPathComponent("cam.yml"))
        try FileManager.default.copyItem(at: single.appendingPathComponent("image-test.png"), to: dir.appendingPathComponent("full.png"))
        let photo = try GrayImage(contentsOf: single.appendingPathComponent("image-test.png"))
        var half = GrayImage.empty
        try GrayImage.resize(photo, width: 320, height: 240, bilinear: true, into: &half)
        try Frame(width: 320, height: 240, stride: 320, format: .gray8, bytes: half.pixels).encoded(as: "png")
            .write(to: dir.appendingPathComponent("half.png"))
        try Frame(width: 640, height: 360, stride: 640, format: .gray8, bytes: Array(photo.pixels[(60 * 640)..<(420 * 640)])).encoded(as: "png")
            .write(to: dir.appendingPathComponent("crop.png"))
        return dir
    }

    static func translations(_ json: URL) throws -> [Int: [Double]] {
        let object = try JSONSerialization.jsonObject(with: Data(contentsOf: json)) as? [String: Any]
        let markers = (object?["frames"] as? [[String: Any]])?.first?["markers"] as? [[String: Any]] ?? []
        return Dictionary(markers.compactMap { m in
            guard let id = m["id"] as? Int, let pose = m["pose"] as? [String: Any], let t = pose["tvec"] as? [Double] else { return nil }
            return (id, t)
        }, uniquingKeysWith: { a, _ in a })
    }

    @Test func detectScalesTheCalibrationToTheSameAspectAndRefusesAnother() throws {
        let dir = try Self.workspace()
        defer { try? FileManager.default.removeItem(at: dir) }
        let pose = ["--calibration", "cam.yml", "--marker-size", "5cm"]
        let full = try CLI.run(["detect", "full.png", "--json", "full.json"] + pose, in: dir)
        #expect(full.status == 0 && !full.stderr.contains("scaled"), "\(full.stderr)")
        try FileManager.default.copyItem(at: dir.appendingPathComponent("half.png"), to: dir.appendingPathComponent("half2.png"))
        let half = try CLI.run(["detect", "half.png", "half2.png", "--json", "half.json"] + pose, in: dir)
        #expect(half.status == 0, "\(half.stderr)")
        let notes = half.stderrLines.filter { $0.contains("its intrinsics are scaled by 0.5 for the pictures of 320x240") }
        #expect(notes.count == 1 && notes[0].contains("is for 640x480"), "one note for two pictures of one size: \(half.stderr)")
        // The poses from the half-size picture are the full-size ones (to the corners' precision at half size).
        let (a, b) = (try Self.translations(dir.appendingPathComponent("full.json")), try Self.translations(dir.appendingPathComponent("half.json")))
        #expect(a.count >= 5 && Set(b.keys).isSuperset(of: a.keys), "full \(a.keys.sorted()), half \(b.keys.sorted())")
        for (id, t) in a {
            guard let s = b[id] else { continue }
            let distance = zip(t, s).map { ($0 - $1) * ($0 - $1) }.reduce(0, +).squareRoot(), range = t.map { $0 * $0 }.reduce(0, +).squareRoot()
            #expect(distance / range < 0.03, "marker \(id): \(t) at full size, \(s) at half")
        }
        let crop = try CLI.run(["detect", "crop.png"] + pose, in: dir)
        #expect(crop.status == 65 && crop.stderrLines.count == 1
                && crop.stderr.contains("is for 640x480 but the picture is 640x360, another aspect ratio"), "\(crop.status) \(crop.stderr)")
    }

    @Test func undistortScalesTheCalibrationToTheSameAspectAndRefusesAnother() throws {
        let dir = try Self.workspace()
        defer { try? FileManager.default.removeItem(at: dir) }
        let run = try CLI.run(["undistort", "half.png", "crop.png", "--calibration", "cam.yml", "-o", "out"], in: dir)
        #expect(run.status == 1, "one of two refused: \(run.stderr)")
        #expect(run.stderr.contains("its intrinsics are scaled by 0.5 for the pictures of 320x240"), "\(run.stderr)")
        #expect(run.stderr.contains("error:") && run.stderr.contains("another aspect ratio"), "\(run.stderr)")
        #expect(try files(in: dir.appendingPathComponent("out")) == ["half.png"])
        let undistorted = try GrayImage(contentsOf: dir.appendingPathComponent("out/half.png"))
        #expect(undistorted.width == 320 && undistorted.height == 240)
    }
}

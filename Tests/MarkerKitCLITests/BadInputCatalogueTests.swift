import Foundation
import Testing
@testable import MarkerKit

/// The bad-input catalogue, the cases the per-command suites do not already hold: broken and
/// hostile image files, boards that are not chessboards, malformed sizes, and outputs that cannot be
/// written (a read-only folder, a full disk). Each runs the real binary and asserts a documented exit
/// code, exactly one `markerkit: error:` line naming the input and the problem, no signal, and that no
/// file was left behind.
@Suite struct BadInputCatalogueTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures")

    /// Where an output is written: an ordinary folder, a read-only file system, or one with 64 KiB free.
    enum Place { case normal, readOnly, full }

    struct Case: Sendable, CustomStringConvertible {
        let arguments: [String]
        let status: Int32
        let says: [String]
        var place = Place.normal
        var description: String { arguments.joined(separator: " ") }
    }

    static let cases: [Case] = [
        Case(arguments: ["detect", "zero.png"], status: 65, says: ["zero.png", "not a readable image"]),
        Case(arguments: ["detect", "truncated.png"], status: 65, says: ["truncated.png", "corrupt"]),
        Case(arguments: ["detect", "text.jpg"], status: 65, says: ["text.jpg", "not a readable image"]),
        Case(arguments: ["detect", "huge.png", "--json", "out.json"], status: 65, says: ["huge.png", "claims 50000x50000 pixels"]),
        Case(arguments: ["detect", "huge.jpg"], status: 65, says: ["huge.jpg", "claims 50000x50000 pixels"]),
        Case(arguments: ["detect", "zero.png", "--annotate", "annotated"], status: 65, says: ["zero.png"]),
        Case(arguments: ["undistort", "--calibration", "cam.yml", "zero.png", "-o", "undistorted"], status: 65, says: ["zero.png"]),
        Case(arguments: ["undistort", "--calibration", "cam.yml", "nothing", "-o", "undistorted"], status: 66, says: ["nothing", "no such file"]),
        Case(arguments: ["calibrate", "circles", "--inner", "9x6", "--square", "20mm", "--name", "c"], status: 65, says: ["no image shows a 9x6 board"]),
        Case(arguments: ["calibrate", "broken", "--inner", "9x6", "--square", "20mm", "--name", "c"], status: 65, says: ["no image shows a 9x6 board"]),
        Case(arguments: ["calibrate", "circles", "--inner", "9x6", "--square=-20mm", "--name", "c"], status: 64, says: ["'-20mm' is invalid for '--square <length>'", "greater than zero"]),
        Case(arguments: ["generate", "markers", "--ids", "0-3", "--size", "25furlongs", "-o", "s.pdf"], status: 64, says: ["25furlongs", "unknown unit"]),
        Case(arguments: ["generate", "checkerboard", "--inner", "9x6", "--square=-5mm", "-o", "b.pdf"], status: 64, says: ["'-5mm' is invalid for '--square <length>'"]),
        Case(arguments: ["generate", "diamond", "--ids", "1,2,3", "--square", "40mm", "--marker", "24mm", "-o", "d.pdf"], status: 64, says: ["'1,2,3'", "four whole numbers"]),
        Case(arguments: ["detect", "zero.png", "--diamonds", "40mm"], status: 64, says: ["--diamonds: '40mm'", "40mm,24mm"]),
        Case(arguments: ["detect", "zero.png", "--diamonds", "24mm,40mm"], status: 64, says: ["--diamonds:", "larger than its marker"]),
        Case(arguments: ["detect", "zero.png", "--diamonds", "1e308mm,1e-300mm"], status: 64, says: ["--diamonds:"]),
        Case(arguments: ["track", "--device", "/dev/null", "--diamonds", "40,24"], status: 64, says: ["--diamonds:", "unit"]),
        Case(arguments: ["generate", "diamond", "--ids", "1,2,3,99999999999999999999999999999999999999", "--square", "40mm", "--marker", "24mm", "-o", "d.pdf"], status: 64, says: ["four whole numbers"]),
        Case(arguments: ["generate", "diamond", "--ids", "1,2,3,1024", "--square", "40mm", "--marker", "24mm", "-o", "d.pdf"], status: 64, says: ["1024 is not in DICT_ARUCO_ORIGINAL"]),
        Case(arguments: ["generate", "diamond", "--ids", "1,2,3,4", "--square", "40mm", "--marker", "40mm", "-o", "d.pdf"], status: 64, says: ["must be smaller than the square"]),
        Case(arguments: ["generate", "diamond", "--ids", "1,2,3,4", "--square", "1m", "--marker", "0.5m", "-o", "d.pdf"], status: 64, says: ["does not fit on A4"]),
        Case(arguments: ["render", "--size=-640x480", "-o", "r"], status: 64, says: ["'-640x480' is invalid for '--size <WxH>'", "not WIDTHxHEIGHT"]),
        Case(arguments: ["verify", "calibration", "--noise=-1"], status: 64, says: ["--noise"]),
        Case(arguments: ["track", "--device", "frames", "--calibration", "malformed.yml", "--marker-size", "5cm"], status: 65, says: ["malformed.yml", "malformed"]),
        Case(arguments: ["bench", "--only", "nothing"], status: 64, says: ["'nothing'", "--only"]),
        // A photo folder asked for by name that holds no set was skipped without a word, the bench run anyway.
        Case(arguments: ["bench", "--only", "chessboards", "--quick", "--chessboard-photos", "nothing"], status: 66,
             says: ["no chessboard-* folder with an expected.json", "nothing"]),
        // Inputs `make fuzz` found crashing (Yams trapped on a list as a mapping key) or allocating 16 GiB
        // (OpenCV sized a matrix from a `rows` that is not a number); kept in Tests/FuzzCorpus.
        Case(arguments: ["calibrations", "import", "fuzz-ros.yaml", "--format", "ros", "--name", "f"], status: 65, says: ["fuzz-ros.yaml", "malformed (ros)"]),
        Case(arguments: ["calibrations", "import", "fuzz-kalibr.yaml", "--name", "f"], status: 65, says: ["fuzz-kalibr.yaml", "malformed (kalibr)"]),
        Case(arguments: ["calibrations", "import", "fuzz-rows.yml", "--name", "f"], status: 65, says: ["fuzz-rows.yml", "'distortion_coefficients' is not a matrix"]),
        Case(arguments: ["undistort", "--calibration", "fuzz-rows.xml", "zero.png", "-o", "u"], status: 65, says: ["fuzz-rows.xml", "'distortion_coefficients' is not a matrix"]),
        Case(arguments: ["calibrations", "import", "fuzz-cut.xml", "--name", "f"], status: 65, says: ["fuzz-cut.xml", "not well-formed XML"]),
        Case(arguments: ["verify", "markers", "--truth", "nothing"], status: 66, says: ["nothing", "cannot read render truth"]),
        Case(arguments: ["verify", "markers", "--truth", "badtruth", "--json", "v.json"], status: 65, says: ["badtruth/truth.json", "not a markerkit-render-truth"]),
        Case(arguments: ["verify", "markers", "--truth", "escape/truth.json"], status: 65, says: ["escape/truth.json", "'../x.png' is not a file inside the folder"]),
        Case(arguments: ["verify", "board", "--truth", "nothing"], status: 66, says: ["nothing", "cannot read render truth"]),
        Case(arguments: ["verify", "board", "--truth", "escape/truth.json"], status: 65, says: ["escape/truth.json", "'../x.png' is not a file inside the folder"]),
        Case(arguments: ["verify", "board", "--board", "malformed.yml"], status: 65, says: ["malformed.yml"]),
        Case(arguments: ["verify", "board", "--renders", "0"], status: 64, says: ["--renders 0 is outside 1-10000"]),
        Case(arguments: ["verify", "pose", "--sizes", "0"], status: 64, says: ["--sizes 0.0 is outside 8-2000"]),
        Case(arguments: ["verify", "pose", "--sizes", "20,,40"], status: 64, says: ["--sizes", "'' is not a size in pixels"]),
        Case(arguments: ["verify", "pose", "--sizes", "1e308"], status: 64, says: ["--sizes", "outside 8-2000"]),
        Case(arguments: ["verify", "pose", "--sizes", "600"], status: 64, says: ["a 600 px marker does not fit a 1280x720 image", "up to 450 px"]),
        Case(arguments: ["verify", "pose", "--sweep-frames", "9223372036854775807"], status: 64, says: ["--sweep-frames", "outside 10-10000"]),
        Case(arguments: ["verify", "pose", "--jpeg", "0"], status: 64, says: ["--jpeg 0 is outside 1-100"]),
        Case(arguments: ["render", "--board", "charuco", "--profile", "phone", "-o", "r"], status: 64, says: ["--profile phone does not apply"]),
        Case(arguments: ["render", "--board", "charuco", "--k1", "3", "-o", "r"], status: 64, says: ["--k1 takes a value from -1 to 1"]),
        Case(arguments: ["calibrations", "import", "fuzz-hang.yml", "--name", "f"], status: 65, says: ["fuzz-hang.yml", "not well-formed YAML"]),
        Case(arguments: ["calibrations", "import", "fuzz-deep.yaml", "--format", "kalibr", "--name", "f"], status: 65, says: ["fuzz-deep.yaml", "nested deeper than 32 levels"]),
        Case(arguments: ["calibrations", "export", "fuzz-huge.cameramodel", "--format", "ros", "-o", "r.yaml"], status: 65, says: ["fuzz-huge.cameramodel", "imagersize is not a whole number"]),
        Case(arguments: ["track", "--device", "frames", "--calibration", "fuzz-nul.yml", "--marker-size", "5cm"], status: 65, says: ["fuzz-nul.yml", "NUL bytes"]),
        Case(arguments: ["generate", "markers", "--ids", "0-3", "--size", "40mm", "-o", "out/s.pdf"], status: 73, says: ["out/s.pdf", "not writable"], place: .readOnly),
        Case(arguments: ["detect", "frames", "--json", "out/d.json"], status: 73, says: ["out/d.json", "not writable"], place: .readOnly),
        Case(arguments: ["generate", "markers", "--ids", "0-23", "--size", "40mm", "--dpi", "300", "-o", "out/s.png"], status: 73, says: ["out/s.png", "No space left"], place: .full),
        Case(arguments: ["render", "--count", "3", "-o", "out/r"], status: 73, says: ["out/r", "No space left"], place: .full),
        Case(arguments: ["generate", "dictionary", "--size", "20mm", "-o", "out/all.svg"], status: 73, says: ["out/all.svg", "No space left"], place: .full),
    ]

    /// The inputs every case may use, in a fresh folder.
    static func workspace() throws -> URL {
        let dir = try makeDirectory()
        func write(_ bytes: Data, _ name: String) throws { try bytes.write(to: dir.appendingPathComponent(name)) }
        let photo = try Data(contentsOf: fixtures.appendingPathComponent("aruco-original-photos/single/image-test.png"))
        try write(Data(), "zero.png")
        try write(photo.prefix(3000), "truncated.png")
        try write(Data("this is not a picture\n".utf8), "text.jpg")
        try write(pngHeader(width: 50000, height: 50000), "huge.png")
        // A baseline JPEG start of frame claiming 50000 x 50000 (0xC350).
        try write(Data([0xFF, 0xD8, 0xFF, 0xC0, 0x00, 0x0B, 0x08, 0xC3, 0x50, 0xC3, 0x50, 0x01, 0x01, 0x11, 0x00, 0xFF, 0xD9]), "huge.jpg")
        try FileManager.default.copyItem(at: fixtures.appendingPathComponent("aruco-original-photos/single/intrinsics.yml"),
                                         to: dir.appendingPathComponent("cam.yml"))
        try write(Data("%YAML:1.0\ncamera_matrix: [1, 2\n".utf8), "malformed.yml")
        let corpus = fixtures.deletingLastPathComponent().appendingPathComponent("FuzzCorpus")
        for (found, name) in [("ros/found-crash-6d58b5f4", "fuzz-ros.yaml"), ("kalibr/found-crash-69929710", "fuzz-kalibr.yaml"),
                              ("opencv-xml/found-oom-a5ebf283", "fuzz-rows.xml"),
                              ("opencv-yaml/found-crash-bb7d30cf", "fuzz-nul.yml")] {
            try FileManager.default.copyItem(at: corpus.appendingPathComponent(found), to: dir.appendingPathComponent(name))
        }
        try write(Data("<?xml version=".utf8), "fuzz-cut.xml") // crashed OpenCV 4.6's XML reader
        // Render truth files: not one at all, and one whose image lies outside its folder.
        for folder in ["badtruth", "escape"] { try FileManager.default.createDirectory(at: dir.appendingPathComponent(folder), withIntermediateDirectories: false) }
        try write(Data("{}\n".utf8), "badtruth/truth.json")
        let seed = try String(contentsOf: corpus.appendingPathComponent("render-truth/fisheye-noise-jpeg"), encoding: .utf8)
        try write(Data(seed.replacingOccurrences(of: "\"scene_000.png\"", with: "\"../x.png\"").utf8), "escape/truth.json")
        try write(Data("%YAML:1.0\n e erkit 0.0: 480\nca\n   -\n".utf8), "fuzz-hang.yml") // OpenCV 4.6's YAML reader never returned
        try write(Data(("cam0:\n  intrinsics: " + String(repeating: "{", count: 20000) + "\n").utf8), "fuzz-deep.yaml") // overflowed Yams' stack
        try write(Data("{ 'lensmodel': 'LENSMODEL_PINHOLE', 'intrinsics': [ 500, 500, 320, 240 ], 'imagersize': [ 1e300, 480 ] }\n".utf8), "fuzz-huge.cameramodel")
        // A matrix whose `rows` is not a number: OpenCV allocated 16 GiB for it.
        try write(Data("%YAML:1.0\n---\ncamera_matrix: !!opencv-matrix\n   rows: 3\n   cols: 3\n   dt: d\n   data: [ 500., 0., 320., 0., 500., 240., 0., 0., 1. ]\ndistortion_coefficients: !!opencv-matrix\n   rows: s5\n   cols: 1\n   dt: d\n   data: [ 0., 0., 0., 0., 0. ]\n".utf8), "fuzz-rows.yml")
        let frames = dir.appendingPathComponent("frames")
        try FileManager.default.createDirectory(at: frames, withIntermediateDirectories: false)
        try photo.write(to: frames.appendingPathComponent("a.png"))
        // Circle grids (4 x 11 asymmetric, as OpenCV's pattern) where a chessboard is expected.
        let circles = dir.appendingPathComponent("circles")
        try FileManager.default.createDirectory(at: circles, withIntermediateDirectories: false)
        for view in 0..<3 { try circleGrid(shift: 20 * view).write(to: circles.appendingPathComponent("grid\(view).png")) }
        // A folder of damaged files only.
        let broken = dir.appendingPathComponent("broken")
        try FileManager.default.createDirectory(at: broken, withIntermediateDirectories: false)
        try Data().write(to: broken.appendingPathComponent("a.jpg"))
        try photo.prefix(5000).write(to: broken.appendingPathComponent("b.png"))
        try pngHeader(width: 50000, height: 50000).write(to: broken.appendingPathComponent("c.png"))
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("out"), withIntermediateDirectories: false)
        return dir
    }

    static func pngHeader(width: UInt32, height: UInt32) -> Data {
        var ihdr = Data("IHDR".utf8)
        for v in [width, height] { withUnsafeBytes(of: v.bigEndian) { ihdr.append(contentsOf: $0) } }
        ihdr.append(contentsOf: [8, 0, 0, 0, 0])
        var data = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13])
        data.append(ihdr)
        withUnsafeBytes(of: crc32(ihdr).bigEndian) { data.append(contentsOf: $0) }
        return data
    }

    static func crc32(_ data: Data) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in data {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }

    static func circleGrid(shift: Int) throws -> Data {
        let (width, height) = (640, 480)
        var pixels = [UInt8](repeating: 255, count: width * height)
        for row in 0..<11 {
            for column in 0..<4 {
                let cx = 120 + shift + column * 80 + (row % 2) * 40, cy = 40 + row * 38
                for y in (cy - 12)...(cy + 12) {
                    for x in (cx - 12)...(cx + 12) where (x - cx) * (x - cx) + (y - cy) * (y - cy) <= 144 {
                        pixels[y * width + x] = 0
                    }
                }
            }
        }
        return try Frame(width: width, height: height, stride: width, format: .gray8, bytes: pixels).encoded(as: "png")
    }

    /// Runs the case; outputs under `out/` go to a read-only or a 64 KiB file system mounted there in a
    /// private mount namespace (`unshare`), whose contents are listed before it goes away.
    static func run(_ c: Case, in dir: URL) throws -> (CLI.Result, [String]) {
        guard c.place != .normal else {
            return (try CLI.run(c.arguments, in: dir), [])
        }
        let options = c.place == .readOnly ? "ro" : "size=64k"
        let script = "mount -t tmpfs -o \(options) none out || exit 99; \"$0\" \"$@\"; rc=$?; ls -A out > listing.txt; exit $rc"
        let result = try CLI.run(["-rm", "sh", "-c", script, CLI.binary.path] + c.arguments, in: dir, executable: "/usr/bin/unshare")
        let listing = (try? String(contentsOf: dir.appendingPathComponent("listing.txt"), encoding: .utf8)) ?? "unlisted"
        try? FileManager.default.removeItem(at: dir.appendingPathComponent("listing.txt"))
        return (result, listing.split(separator: "\n").map(String.init))
    }

    @Test(arguments: cases)
    func oneLineADocumentedCodeAndNothingLeftBehind(_ c: Case) throws {
        let dir = try Self.workspace()
        defer { try? FileManager.default.removeItem(at: dir) }
        let before = try files(in: dir)
        let (result, mounted) = try Self.run(c, in: dir)
        #expect(result.status != 99, "\(c): this machine cannot mount a tmpfs in a private namespace")
        #expect(result.status == c.status, "\(c): \(result.stderr)")
        #expect(MarkerKitError.documentedExitCodes.contains(result.status))
        #expect(result.stderrLines.count == 1, "\(c): \(result.stderr)")
        #expect(result.stderr.hasPrefix("markerkit: error: "), "\(c): \(result.stderr)")
        #expect(!result.stderr.contains("Fatal error") && !result.stderr.contains("Stack dump"), "\(c)")
        for part in c.says { #expect(result.stderr.contains(part), "\(c): \(result.stderr) should say \(part)") }
        #expect(try files(in: dir) == before, "\(c): no output left behind")
        #expect(mounted.isEmpty, "\(c): left \(mounted) on the small file system")
    }

    /// Found by `make fuzz`: exporting a calibration whose units text starts with `}` crashed OpenCV's
    /// writer (SIGSEGV). Odd text is not bad input: it is written as text and reads back the same.
    @Test func oddTextInACalibrationIsExportedNotCrashedOn() throws {
        let dir = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try Data("%YAML:1.0\n---\nnframes: 10\nunits: \"}m\"\ncamera_matrix: !!opencv-matrix\n   rows: 3\n   cols: 3\n   dt: d\n   data: [ 374., 0., 144., 0., 374., 177., 0., 0., 1. ]\navg_reprojection_error: 0.5\n".utf8)
            .write(to: dir.appendingPathComponent("odd.yml"))
        for (format, file) in [("opencv-yaml", "out.yml"), ("opencv-xml", "out.xml")] {
            let result = try CLI.run(["calibrations", "export", "odd.yml", "--format", format, "-o", file], in: dir)
            #expect(result.status == 0, "\(format): \(result.stderr)")
            #expect(try CameraCalibration.read(from: dir.appendingPathComponent(file)).provenance?.units == "}m", "\(format)")
        }
    }
}

import Foundation
import Testing
@testable import MarkerKit

/// What `detect` takes as image input, run as a user runs it: special files (FIFOs, sockets, devices)
/// are never opened, whether they sit in a folder or are named on the command line; a phone JPEG is
/// read as it is shown, and the JSON says so.
@Suite struct ImageInputCLITests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures")
    static let photo = fixtures.appendingPathComponent("aruco-original-photos/single/image-test.png")

    /// markerkit run like `CLI.run`, but killed after `seconds`: a command that hangs (opening a FIFO
    /// waits for a writer that never comes) fails the test instead of stopping the suite.
    static func run(_ arguments: [String], in dir: URL, seconds: Double = 20) throws -> (CLI.Result, timedOut: Bool) {
        let started = try CLI.Started(arguments, in: dir, filePrefix: ".")
        let process = started.process
        let clock = ContinuousClock()
        let start = clock.now
        while process.isRunning && clock.now - start < .milliseconds(Int(seconds * 1000)) { usleep(10_000) }
        let timedOut = process.isRunning
        if timedOut { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        let (stdout, stderr) = try started.output()
        if !timedOut { #expect(process.terminationReason == .exit, "markerkit \(arguments) died of a signal") }
        return (CLI.Result(status: process.terminationStatus, stdout: stdout, stderr: stderr), timedOut)
    }

    /// A Unix socket bound at `path` (a special file like a FIFO); the descriptor is closed, the file stays.
    static func makeSocket(at path: String) throws {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw MarkerKitError.internalFailure("socket: \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8CString)
        guard bytes.count <= MemoryLayout.size(ofValue: address.sun_path) else { throw MarkerKitError.internalFailure("socket path too long: \(path)") }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (i, byte) in bytes.enumerated() { raw[i] = UInt8(bitPattern: byte) }
        }
        let status = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard status == 0 else { throw MarkerKitError.internalFailure("bind \(path): \(String(cString: strerror(errno)))") }
    }

    /// A FIFO named like an image among the images of a folder made `detect folder/` wait forever for a
    /// writer: it is skipped with one note, never opened, and the images beside it are read.
    @Test func specialFilesInAFolderAreSkippedWithANoteNotOpened() throws {
        let dir = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let shots = dir.appendingPathComponent("shots")
        try FileManager.default.createDirectory(at: shots, withIntermediateDirectories: false)
        try FileManager.default.copyItem(at: Self.photo, to: shots.appendingPathComponent("a.png"))
        #expect(mkfifo(shots.appendingPathComponent("x.png").path, 0o644) == 0)
        try Self.makeSocket(at: shots.appendingPathComponent("s.jpg").path)
        // A link to a character device, named like an image.
        try FileManager.default.createSymbolicLink(atPath: shots.appendingPathComponent("z.tif").path, withDestinationPath: "/dev/zero")
        let (result, timedOut) = try Self.run(["detect", "shots", "--json", "out.json"], in: dir)
        #expect(!timedOut, "detect hung on a special file in the folder")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("shots/a.png: 6 markers"), "\(result.stdout)")
        let notes = result.stderrLines.filter { $0.hasPrefix("markerkit: note:") }
        #expect(result.stderrLines.count == 1 && notes.count == 1, "\(result.stderr)")
        for name in ["x.png", "s.jpg", "z.tif", "not opened"] { #expect(notes.first?.contains(name) == true, "\(result.stderr) should name \(name)") }
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: dir.appendingPathComponent("out.json"))) as! [String: Any]
        #expect((json["frames"] as! [[String: Any]]).map { $0["source"] as! String } == ["shots/a.png"])
    }

    /// A special file named on the command line: one error line, the documented code for input that
    /// cannot be read (66), no hang, nothing written; the other inputs are still read (exit 1).
    @Test func aSpecialFileNamedOnTheCommandLineIsOneErrorLine() throws {
        let dir = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        #expect(mkfifo(dir.appendingPathComponent("x.png").path, 0o644) == 0)
        try Self.makeSocket(at: dir.appendingPathComponent("s.png").path)
        try FileManager.default.copyItem(at: Self.photo, to: dir.appendingPathComponent("a.png"))
        try FileManager.default.copyItem(at: Self.fixtures.appendingPathComponent("aruco-original-photos/single/intrinsics.yml"),
                                         to: dir.appendingPathComponent("cam.yml"))
        let before = try files(in: dir)
        for (arguments, says) in [(["detect", "x.png"], "a FIFO"), (["detect", "s.png", "--json", "out.json"], "a socket"),
                                  (["detect", "/dev/zero"], "a device"),
                                  (["undistort", "--calibration", "cam.yml", "x.png", "-o", "u"], "a FIFO"),
                                  (["calibrate", "x.png", "--inner", "9x6", "--square", "20mm", "--name", "c"], "a FIFO")] {
            let (result, timedOut) = try Self.run(arguments, in: dir)
            #expect(!timedOut, "\(arguments) hung")
            let input = arguments[arguments[0] == "undistort" ? 3 : 1]
            #expect(result.status == 66, "\(arguments): \(result.stderr)")
            #expect(MarkerKitError.documentedExitCodes.contains(result.status))
            #expect(result.stderrLines.count == 1 && result.stderr.hasPrefix("markerkit: error: "), "\(arguments): \(result.stderr)")
            #expect(result.stderr.contains(input) && result.stderr.contains(says) && result.stderr.contains("not a regular file"),
                    "\(arguments): \(result.stderr)")
        }
        let (mixed, timedOut) = try Self.run(["detect", "a.png", "x.png"], in: dir)
        #expect(!timedOut)
        #expect(mixed.status == 1 && mixed.stdout.contains("a.png: 6 markers"), "\(mixed.stdout) \(mixed.stderr)")
        #expect(mixed.stderrLines.count == 1 && mixed.stderr.contains("x.png"), "\(mixed.stderr)")
        #expect(try files(in: dir) == before, "no output left behind")
    }

    /// A phone photo: stored turned (as the sensor saw it) with EXIF orientation 6 (show it turned 90°
    /// clockwise). detect reads it as shown: the same markers, corners within JPEG's loss of the upright
    /// PNG's, width and height as displayed, and the JSON (file and lines) says what was applied.
    @Test func aPhoneJPEGIsDetectedAsShownAndTheJSONSaysSo() throws {
        let dir = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let upright = try Frame(contentsOf: Self.photo, format: .bgr8)
        let stored = try FrameTransform(rotate: 270, mirror: false).apply(upright) // 480 x 640, as the phone stores it
        let jpeg = try stored.encoded(as: "jpg")
        // EXIF: "Exif\0\0", then a big-endian TIFF structure with one entry, orientation (0x0112) = 6.
        let exif: [UInt8] = Array("Exif".utf8) + [0, 0] + Array("MM".utf8) + [0, 42, 0, 0, 0, 8, 0, 1,
                                                                               0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, 6, 0, 0, 0, 0, 0, 0]
        let app1: [UInt8] = [0xFF, 0xE1, 0, UInt8(exif.count + 2)] + exif
        try (jpeg.prefix(2) + Data(app1) + jpeg.dropFirst(2)).write(to: dir.appendingPathComponent("phone.jpg"))
        try FileManager.default.copyItem(at: Self.photo, to: dir.appendingPathComponent("upright.png"))

        let (result, timedOut) = try Self.run(["detect", "phone.jpg", "upright.png", "--json", "out.json", "--annotate", "annotated"], in: dir)
        #expect(!timedOut && result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("phone.jpg: 6 markers: 101 601 701 801 901 1001"), "\(result.stdout)")
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: dir.appendingPathComponent("out.json"))) as! [String: Any]
        let frames = json["frames"] as! [[String: Any]]
        #expect(frames.count == 2)
        let (phone, png) = (frames[0], frames[1])
        #expect(phone["width"] as? Int == 640 && phone["height"] as? Int == 480, "the displayed size")
        let orientation = phone["orientation"] as? [String: Any]
        #expect(orientation?.count == 2 && orientation?["exif"] as? Int == 6 && orientation?["applied"] as? Bool == true, "\(phone)")
        #expect(try String(contentsOf: dir.appendingPathComponent("out.json"), encoding: .utf8).contains("\"applied\" : true"))
        #expect(png["orientation"] == nil, "a PNG without a tag says nothing")
        func corners(_ frame: [String: Any]) -> [Int: [[Double]]] {
            Dictionary(uniqueKeysWithValues: (frame["markers"] as! [[String: Any]]).map { ($0["id"] as! Int, $0["corners"] as! [[Double]]) })
        }
        let (found, expected) = (corners(phone), corners(png))
        #expect(found.keys.sorted() == expected.keys.sorted() && found.count == 6)
        var moved = 0.0
        for (id, points) in found {
            for (p, q) in zip(points, expected[id] ?? []) { moved = max(moved, ((p[0] - q[0]) * (p[0] - q[0]) + (p[1] - q[1]) * (p[1] - q[1])).squareRoot()) }
        }
        #expect(moved < 0.1, "corners within \(moved) px of the upright PNG's")
        let annotated = try Frame(contentsOf: dir.appendingPathComponent("annotated/phone.png"))
        #expect(annotated.width == 640 && annotated.height == 480, "the annotated image is upright")

        let (lines, _) = try Self.run(["detect", "phone.jpg", "--jsonl"], in: dir)
        #expect(lines.status == 0 && lines.stdout.contains("\"orientation\":{\"applied\":true,\"exif\":6}"), "\(lines.stdout)")
    }

    /// `detect --help` states the 16-bit rule, the orientation and the special files, as the README does.
    @Test func helpSaysHowImagesAreRead() throws {
        let dir = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let help = try CLI.run(["detect", "--help"], in: dir).stdout.replacingOccurrences(of: "\n", with: " ")
        for phrase in ["16-bit", "4096", "stretched", "EXIF orientation", "\"applied\": true", "FIFOs, sockets and devices are never opened"] {
            #expect(help.contains(phrase), "detect --help should say \(phrase)")
        }
    }
}

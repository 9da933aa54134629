import Foundation
import Testing
@testable import MarkerKit

/// Nothing is replaced without --force: every command that writes a named file (or a render set) refuses
/// one that exists, with one line and exit 73, and leaves it as it was; with --force it replaces it.
@Suite struct OverwriteCLITests {
    static let photo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/aruco-original-photos/single/image-test.png").path

    /// The command, and the file it writes that exists beforehand.
    static let cases: [(arguments: [String], target: String)] = [
        (["generate", "marker", "3", "--size", "20mm", "-o", "m.svg"], "m.svg"),
        (["generate", "markers", "--ids", "0-3", "--size", "20mm", "-o", "s.pdf"], "s.pdf"),
        (["detect", photo, "--json", "out.json"], "out.json"),
        (["detect", photo, "--jsonl", "--json", "out.jsonl"], "out.jsonl"),
        (["track", "--device", photo, "--jsonl", "t.jsonl"], "t.jsonl"),
        (["render", "--count", "1", "--size", "320x240", "-o", "r"], "r/truth.json"),
        (["verify", "markers", "--renders", "2", "--size", "320x240", "--json", "v.json"], "v.json"),
        (["render", "--clip", "2", "--size", "320x240", "-o", "c.avi"], "c.avi"),
        // The board spec beside a clip: it was replaced silently before BoardClip checked it.
        (["render", "--clip", "2", "--size", "320x240", "-o", "c.avi"], "c.json"),
    ]

    @Test(arguments: 0..<cases.count)
    func existingFilesAreReplacedOnlyWithForce(index: Int) throws {
        let (arguments, target) = Self.cases[index]
        let dir = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = dir.appendingPathComponent(target)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data("keep\n".utf8).write(to: url)
        let refused = try CLI.run(arguments, in: dir)
        #expect(refused.status == 73, "\(arguments): \(refused.stderr)")
        #expect(refused.stderr.contains("exists: add --force to replace it") && refused.stderr.split(separator: "\n").count == 1, "\(refused.stderr)")
        #expect(try String(contentsOf: url, encoding: .utf8) == "keep\n")
        let forced = try CLI.run(arguments + ["--force"], in: dir)
        #expect(forced.status == 0, "\(arguments) --force: \(forced.stderr)")
        #expect(try Data(contentsOf: url) != Data("keep\n".utf8))
    }
}

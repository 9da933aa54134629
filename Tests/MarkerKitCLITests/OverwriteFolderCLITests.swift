import Foundation
import Testing
@testable import MarkerKit

/// Folders a command writes into (detect --annotate, undistort -o, capture --out, render --clip -o) follow
/// the rule of named files: a file in them that the run would replace is refused with one line and exit 73,
/// before any work, and left as it was; with --force it is replaced.
@Suite struct OverwriteFolderCLITests {
    static let single = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/aruco-original-photos/single")
    static let photo = single.appendingPathComponent("image-test.png").path

    /// The command, and the file in its output folder that exists beforehand.
    static let cases: [(arguments: [String], target: String)] = [
        (["detect", photo, "--annotate", "annotated"], "annotated/image-test.png"),
        (["undistort", "--calibration", "cam.yml", photo, "-o", "undistorted"], "undistorted/image-test.png"),
        (["capture", "--device", "frames", "--out", "views", "--every", "0", "--count", "1"], "views/capture.json"),
        (["capture", "--device", "frames", "--out", "views", "--every", "0", "--count", "1"], "views/view_000.png"),
        (["render", "--clip", "2", "--size", "320x240", "-o", "clip"], "clip/frame_0012.png"),
        (["render", "--clip", "2", "--size", "320x240", "-o", "clip"], "clip/truth.json"),
    ]

    @Test(arguments: 0..<cases.count)
    func filesInOutputFoldersAreReplacedOnlyWithForce(index: Int) throws {
        let (arguments, target) = Self.cases[index]
        let dir = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try FileManager.default.copyItem(at: Self.single.appendingPathComponent("intrinsics.yml"), to: dir.appendingPathComponent("cam.yml"))
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("frames"), withIntermediateDirectories: false)
        try FileManager.default.copyItem(atPath: Self.photo, toPath: dir.appendingPathComponent("frames/a.png").path)
        let url = dir.appendingPathComponent(target)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data("keep\n".utf8).write(to: url)
        let refused = try CLI.run(arguments, in: dir)
        #expect(refused.status == 73, "\(arguments): \(refused.stderr)")
        #expect(refused.stderr == "markerkit: error: '\(target)' exists: add --force to replace it\n", "\(refused.stderr)")
        #expect(refused.stdout.isEmpty, "nothing done: \(refused.stdout)")
        #expect(try String(contentsOf: url, encoding: .utf8) == "keep\n")
        #expect(try files(in: url.deletingLastPathComponent()) == [url.lastPathComponent], "nothing else written")
        let forced = try CLI.run(arguments + ["--force"], in: dir)
        #expect(forced.status == 0, "\(arguments) --force: \(forced.stderr)")
        #expect(try Data(contentsOf: url) != Data("keep\n".utf8))
    }
}

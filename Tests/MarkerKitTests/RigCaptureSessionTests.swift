import Foundation
import Testing
@testable import MarkerKit

/// A rig capture kept by request, as the page's keep button asks: OpenCV's left/right sample folders,
/// where the board moves from picture to picture so that the assistant alone keeps nothing (it waits for a
/// still board); on request each matched pair in which both cameras find the board sharp is kept, and the
/// pairs' sigma comes from 3 sets on.
@Suite struct RigCaptureSessionTests {
    func capture(request: Bool) throws -> (outcome: RigCaptureSession.Outcome, updates: [RigCaptureSession.Update], dir: URL) {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("rig-capture-\(UUID().uuidString)")
        let folders = ["chessboard-opencv-9x6", "chessboard-opencv-9x6-right"].map { Fixtures.url($0).path }
        var options = FrameSources.Options()
        options.color = true
        let feeds = try folders.map { FrameFeed(source: try FrameSources.open($0, options: options), isCamera: false) }
        let board = try Checkerboard(innerColumns: 9, innerRows: 6, square: .mm(25))
        var session = try RigCaptureSession(directory: dir, names: ["left", "right"], devices: folders, target: .checkerboard(board), count: 30, maxGap: 0.1)
        var updates: [RigCaptureSession.Update] = []
        let outcome = try session.run(feeds: feeds, request: { request }, onUpdate: { updates.append($0) })
        return (outcome, updates, dir)
    }

    @Test func setsAreKeptOnRequestAndThePairIsMeasured() throws {
        let unasked = try capture(request: false)
        defer { try? FileManager.default.removeItem(at: unasked.dir) }
        #expect(unasked.outcome.saved[0].isEmpty, "a board that moves each picture is never held still")

        let asked = try capture(request: true)
        defer { try? FileManager.default.removeItem(at: asked.dir) }
        let kept = asked.outcome.saved[0].count
        #expect(kept >= 10 && asked.outcome.saved[1].count == kept, "\(kept) sets")
        #expect(try FileManager.default.contentsOfDirectory(atPath: asked.dir.appendingPathComponent("right").path).filter { $0.hasSuffix(".png") }.count == kept)
        let last = try #require(asked.updates.last)
        #expect(last.corners.allSatisfy { $0?.count == 54 }, "both cameras' corners for the page")
        let pair = try #require(last.pairs.first)
        #expect(pair.first == "left" && pair.second == "right" && pair.sets == kept)
        #expect(abs(pair.baseline - 83.2) < 0.5 && pair.baselineSigma > 0.01 && pair.baselineSigma < 0.2, "\(pair.line)")
        #expect(asked.updates.prefix { $0.saved < 2 }.allSatisfy { $0.pairs.isEmpty }, "no pair sigma before 3 sets")
        print("measured: \(pair.line)")
    }
}

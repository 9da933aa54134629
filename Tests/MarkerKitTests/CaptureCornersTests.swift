import Foundation
import Testing
@testable import MarkerKit

/// The capture assistant's live uncertainty comes from the corners the stored calibration uses: a kept
/// chessboard view holds the corners `calibrate` finds in the same picture (ChessboardFinder: cornerSubPix,
/// then the model fit), not the live finder's cornerSubPix corners (which differed by up to a few tenths
/// of a pixel, so the live figure and the stored one came from two sets of corners).
@Suite struct CaptureCornersTests {
    @Test func aKeptViewHoldsTheCornersCalibrateFinds() throws {
        let board = try Checkerboard(innerColumns: 9, innerRows: 6, square: .mm(25))
        var assistant = CaptureAssistant(settings: .init(board: board))
        let folder = Fixtures.url("chessboard-opencv-9x6")
        var worst = 0.0, kept = 0
        for (index, name) in ["left01.jpg", "left03.jpg", "left12.jpg"].enumerated() {
            let url = folder.appendingPathComponent(name)
            let verdict = try assistant.consider(SourcedFrame(source: name, index: index, frame: try Frame(contentsOf: url)), force: true)
            #expect(verdict == .kept, "\(name): \(verdict)")
            guard verdict == .kept, let view = assistant.kept.last else { continue }
            kept += 1
            let stored = try #require(try ChessboardFinder(innerColumns: 9, innerRows: 6).find(in: try GrayImage(contentsOf: url))).corners
            let live = try #require(try FastChessboardFinder(innerColumns: 9, innerRows: 6).find(in: try GrayImage(contentsOf: url)))
            #expect(zip(live, stored).contains { $0.distance(to: $1) > 0.01 }, "\(name): the live finder's corners are not the stored ones")
            for (a, b) in zip(view.corners, stored) { worst = max(worst, a.distance(to: b)) }
        }
        #expect(kept == 3)
        #expect(worst < 0.005, "kept corners up to \(worst) px from calibrate's")
    }
}

import Foundation
import Testing
@testable import MarkerKit

/// Every real chessboard photo set in `Tests/Fixtures/chessboard-*` (OpenCV's left and right samples, a GoPro
/// with a wide lens, a car's camera with rotated and corner boards, a dim fisheye): a board wherever any
/// of OpenCV's finders finds one (findChessboardCorners with adaptive threshold and normalise, or
/// findChessboardCornersSB, in OpenCV 4.6 or the newest; each photo's results in the set's expected.json),
/// as `calibrate` and `detect --board` search (ChessboardFinder), and none where no finder finds one.
@Suite struct ChessboardPhotoRecallTests {
    static let sets = (try? ChessboardPhotoSet.all(in: Fixtures.root)) ?? []

    @Test func theRealSetsAreThere() {
        #expect(Self.sets.count >= 5, "chessboard-* folders with an expected.json under \(Fixtures.root.path)")
        #expect(Self.sets.reduce(0) { $0 + $1.files.count } >= 100)
    }

    @Test(arguments: ChessboardPhotoRecallTests.sets.map(\.name))
    func aBoardWhereverOpenCVFindsOne(set name: String) throws {
        let set = try #require(Self.sets.first { $0.name == name })
        let finder = ChessboardFinder(innerColumns: set.columns, innerRows: set.rows)
        var missed: [String] = [], extra: [String] = []
        for file in set.files {
            let image = try GrayImage(contentsOf: set.folder.appendingPathComponent(file))
            let found = try finder.find(in: image)
            if set.openCVFinds(file), found == nil { missed.append(file) }
            if !set.openCVFinds(file), found != nil { extra.append(file) }
            if let found {
                #expect(found.corners.count == set.columns * set.rows)
                #expect(found.corners.allSatisfy { $0.x >= 0 && $0.y >= 0 && $0.x <= Double(image.width - 1) && $0.y <= Double(image.height - 1) })
            }
        }
        #expect(missed.isEmpty, "\(name): OpenCV finds a board that MarkerKit misses in \(missed)")
        #expect(extra.isEmpty, "\(name): a board where no OpenCV finder sees one in \(extra)")
    }

    /// The corners fitted from OpenCV's coarse corners end where they end from cornerSubPix's (the fit of
    /// `calibrate` before this finder), within a hundredth of a pixel on OpenCV's left samples.
    @Test func fittedCornersAreTheOnesCalibrateFittedBefore() throws {
        let set = try #require(Self.sets.first { $0.name == "chessboard-opencv-9x6" })
        let finder = ChessboardFinder(innerColumns: 9, innerRows: 6)
        var worst = 0.0, count = 0
        for file in set.files {
            let image = try GrayImage(contentsOf: set.folder.appendingPathComponent(file))
            let ours = try #require(try finder.find(in: image)).corners
            let before = try #require(try ChessboardDetector(innerColumns: 9, innerRows: 6).detect(in: image))
            let fitted = ChessboardCornerFit().refine(before, columns: 9, in: image)
            for (a, b) in zip(ours, fitted) { worst = max(worst, a.distance(to: b)); count += 1 }
        }
        #expect(count == 13 * 54)
        #expect(worst < 0.01, "worst \(worst) px")
    }
}

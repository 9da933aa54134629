import Foundation
import Testing
@testable import MarkerKit

/// The capture assistant's chessboard finder on 1080p frames: every rendered view found with corners as
/// close to the truth as the full-resolution pipeline's, a board held far away found by the second pass,
/// no board reported where there is none, and grids with a misplaced corner refused.
@Suite struct FastChessboardFinderTests {
    static func views(count: Int, seed: UInt64) throws -> [(image: GrayImage, truth: [Point2])] {
        var verification = try CalibrationVerification(camera: BuiltInCamera.webcam(width: 1920, height: 1080), width: 1920,
                                                       height: 1080, views: count, seed: seed)
        verification.noise = 2
        verification.blur = 0.5
        let renderer = SceneRenderer()
        return try verification.viewScenes().map { scene in
            var scene = scene
            scene.degradations.texturedBackground = true
            return (try renderer.render(scene), try SceneTruth.chessboardCorners(of: scene)[0])
        }
    }

    static func rmse(_ corners: [Point2], _ truth: [Point2]) -> Double {
        [corners, corners.reversed()].map { order in
            (zip(order, truth).map { $0.distance(to: $1) * $0.distance(to: $1) }.reduce(0, +) / Double(truth.count)).squareRoot()
        }.min()!
    }

    @Test func findsRenderedViewsAsAccuratelyAsTheFullResolutionPipeline() throws {
        let finder = FastChessboardFinder(innerColumns: 9, innerRows: 6)
        let full = ChessboardDetector(innerColumns: 9, innerRows: 6)
        for (index, view) in try Self.views(count: 5, seed: 11).enumerated() {
            let fast = try #require(try finder.find(in: view.image), "view \(index) found")
            let slow = try #require(try full.detect(in: view.image), "view \(index) found at full resolution")
            let (fastError, slowError) = (Self.rmse(fast, view.truth), Self.rmse(slow, view.truth))
            print("measured: view \(index) corner RMSE fast finder \(fastError) px, full resolution \(slowError) px")
            #expect(fastError < 0.1)
            #expect(fastError < slowError * 1.3 + 0.01)
        }
    }

    @Test func aBoardHeldFarAwayIsFoundByTheSecondPass() throws {
        // A 640x360 view pasted into an empty 1080p frame: squares of a few pixels at 320 px wide.
        var verification = try CalibrationVerification(camera: BuiltInCamera.webcam(width: 640, height: 360), width: 640,
                                                       height: 360, views: 1, seed: 5)
        verification.noise = 1
        let scene = try verification.viewScenes()[0]
        let small = try SceneRenderer().render(scene)
        var pixels = [UInt8](repeating: 128, count: 1920 * 1080)
        let (ox, oy) = (700, 400)
        for y in 0..<small.height { for x in 0..<small.width { pixels[(oy + y) * 1920 + ox + x] = small[x, y] } }
        let frame = GrayImage(width: 1920, height: 1080, pixels: pixels)
        let truth = try SceneTruth.chessboardCorners(of: scene)[0].map { Point2(x: $0.x + Double(ox), y: $0.y + Double(oy)) }
        let quick = try ChessboardDetector.quickLook(in: FastChessboardFinder.shrunk(frame, toWidth: 320), columns: 9, rows: 6)
        #expect(quick == nil, "too small for the first pass: this test must exercise the second")
        let corners = try #require(try FastChessboardFinder(innerColumns: 9, innerRows: 6).find(in: frame))
        #expect(Self.rmse(corners, truth) < 0.15)
    }

    @Test func reportsNoBoardWhereThereIsNone() throws {
        let scene = try BenchmarkScenes.markers(count: 10, width: 1920, height: 1080, seed: 90)
        #expect(try FastChessboardFinder(innerColumns: 9, innerRows: 6).find(in: SceneRenderer().render(scene)) == nil)
    }

    @Test func refusesAGridWithAMisplacedCorner() {
        // A board seen in perspective: spacing shrinks along the rows.
        var grid: [Point2] = []
        for r in 0..<6 { for c in 0..<9 { let x = Double(c), y = Double(r); let w = 1 + 0.05 * x
            grid.append(Point2(x: 100 + 50 * x / w, y: 100 + 50 * y / w)) } }
        #expect(FastChessboardFinder.isRegular(grid, columns: 9, rows: 6))
        for index in [0, 9, 22, 53] {
            var moved = grid
            moved[index].y += 15 // 30% of a square
            #expect(!FastChessboardFinder.isRegular(moved, columns: 9, rows: 6), "corner \(index) moved")
        }
    }
}

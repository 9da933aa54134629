import Foundation
import CVBridgeTestReferences
import Testing
@testable import MarkerKit

/// MarkerKit's ChArUco layout against OpenCV 4.6's `CharucoBoard::create` (Debian's, the current layout),
/// and the legacy layout against OpenCV 4.10's `setLegacyPattern(true)`.
@Suite struct CharucoBoardTests {
    /// OpenCV's marker IDs, marker corners and chessboard corners for the same board, in millimetres.
    static func opencv(_ x: Int, _ y: Int, square: Double, marker: Double, dictionary: Int32) throws
        -> (ids: [Int], markers: [[Point2]], corners: [Point2]) {
        var ids = [Int32](repeating: 0, count: x * y), markerCorners = [Float](repeating: 0, count: 8 * x * y)
        var chess = [Float](repeating: 0, count: 2 * x * y), cornerCount: Int32 = 0
        let count = cvb_charuco_board_opencv(Int32(x), Int32(y), Float(square), Float(marker), dictionary, &ids, &markerCorners,
                                             Int32(x * y), &chess, Int32(x * y), &cornerCount)
        try #require(count >= 0)
        let markers = (0..<Int(count)).map { i in (0..<4).map { k in
            Point2(x: Double(markerCorners[8 * i + 2 * k]), y: Double(markerCorners[8 * i + 2 * k + 1])) } }
        let corners = (0..<Int(cornerCount)).map { Point2(x: Double(chess[2 * $0]), y: Double(chess[2 * $0 + 1])) }
        return (ids.prefix(Int(count)).map(Int.init), markers, corners)
    }

    static func close(_ a: Point2, _ b: Point2) -> Bool { a.distance(to: b) < 1e-3 }

    @Test(arguments: [(5, 7), (5, 6), (6, 6), (4, 5), (11, 8), (2, 2), (3, 10)])
    func layoutIsOpenCVs(size: (Int, Int)) throws {
        for (dictionary, name) in [(MarkerDictionary.arucoOriginal, Int32(16)), (.dict5x5_100, Int32(5))] {
            let board = try CharucoBoard(squaresX: size.0, squaresY: size.1, square: .mm(40), marker: .mm(20), dictionary: dictionary)
            let reference = try Self.opencv(size.0, size.1, square: 40, marker: 20, dictionary: name)
            #expect(board.markers.map(\.id) == reference.ids, "\(size)")
            #expect(board.markers.count == reference.markers.count)
            for (ours, theirs) in zip(board.markers, reference.markers) {
                #expect(zip(ours.corners, theirs).allSatisfy(Self.close), "\(size) marker \(ours.id): \(ours.corners) vs \(theirs)")
            }
            #expect(board.corners.count == reference.corners.count)
            #expect(zip(board.corners, reference.corners).allSatisfy(Self.close), "\(size) chessboard corners")
        }
    }

    /// OpenCV 4.10 (opencv-contrib-python), `CharucoBoard((5, 6), 0.04, 0.02, DICT_ARUCO_ORIGINAL)` with
    /// `setLegacyPattern(true)`: the top-left corner of each marker, in cm.
    @Test func legacyLayoutOfAnEvenRowBoardIsOpenCVsLegacyPattern() throws {
        let expected = [(1, 1), (9, 1), (17, 1), (5, 5), (13, 5), (1, 9), (9, 9), (17, 9), (5, 13), (13, 13), (1, 17), (9, 17), (17, 17), (5, 21), (13, 21)]
        let legacy = try CharucoBoard(squaresX: 5, squaresY: 6, square: .mm(40), marker: .mm(20), legacy: true)
        #expect(legacy.markers.map { [Int(($0.corners[0].x / 10).rounded()), Int(($0.corners[0].y / 10).rounded())] } == expected.map { [$0.0, $0.1] })
        // With an odd number of rows the two layouts are the same board.
        let odd = try CharucoBoard(squaresX: 5, squaresY: 7, square: .mm(40), marker: .mm(20), legacy: true)
        let current = try CharucoBoard(squaresX: 5, squaresY: 7, square: .mm(40), marker: .mm(20))
        #expect(odd.markers.map(\.corners) == current.markers.map(\.corners))
    }

    @Test func firstIDShiftsEveryMarkerAndRefusesIDsBeyondTheDictionary() throws {
        let board = try CharucoBoard(squaresX: 5, squaresY: 7, square: .mm(40), marker: .mm(20), dictionary: .dict5x5_50, firstID: 30)
        #expect(board.markers.map(\.id) == Array(30..<47))
        #expect(throws: MarkerKitError.self) {
            try CharucoBoard(squaresX: 5, squaresY: 7, square: .mm(40), marker: .mm(20), dictionary: .dict5x5_50, firstID: 34)
        }
        #expect(throws: MarkerKitError.self) { try CharucoBoard(squaresX: 5, squaresY: 7, square: .mm(20), marker: .mm(20)) }
    }
}

/// The print check: a ChArUco sheet as PDF, rasterized at 200 dpi by poppler, is decoded by
/// OpenCV 4.6's own ChArUco detection (detectMarkers + interpolateCornersCharuco) with every corner ID,
/// and neighbouring corners lie one square apart within 0.2 mm.
@Suite struct CharucoSheetTests {
    /// (Boards of the other sizes too: 4x4, 6x6, 7x7 and AprilTag markers drawn as OpenCV reads them.)
    @Test(arguments: [(MarkerDictionary.arucoOriginal, 5, 7), (.dict5x5_100, 5, 7), (.arucoOriginal, 6, 8), (.named(.dict4x4_50), 5, 7),
                      (.named(.dict6x6_250), 5, 7), (.named(.dict7x7_1000), 5, 7), (.named(.aprilTag36h11), 5, 7)])
    func printedBoardDecodesInOpenCVWithEveryCornerAtTheSquareSize(dictionary: MarkerDictionary, squaresX: Int, squaresY: Int) throws {
        let board = try CharucoBoard(squaresX: squaresX, squaresY: squaresY, square: .mm(25), marker: .mm(18), dictionary: dictionary)
        let sheet = try CharucoSheet(board: board, page: PageSize(parsing: "a4"), margin: .mm(10))
        let directory = try TemporaryDirectory()
        let pdf = try write(sheet.document(), as: "charuco.pdf", in: directory)[0]
        let page = try #require(try rasterizePDF(pdf, dpi: 200, in: directory).first)
        let capacity = board.corners.count
        let corners = try OpenCVCharucoDetector(board: board).detect(in: page)
        let found = corners.count
        #expect(found == capacity, "\(board.summary): OpenCV found \(found) of \(capacity) corners")
        #expect(Set(corners.map(\.id)) == Set(0..<capacity))
        let worst = worstSquareError(corners, columns: squaresX - 1, square: 25, dpi: 200)
        #expect(worst <= 0.2, "\(board.summary): a square measures up to \(worst) mm off 25 mm")
        // MarkerKit's own detector reads the print the same way.
        let ours = try CharucoDetector(board: board).detect(in: page).corners
        #expect(ours.map(\.id) == Array(0..<capacity), "\(board.summary): MarkerKit found \(ours.count) of \(capacity) corners")
        let oursWorst = worstSquareError(ours, columns: squaresX - 1, square: 25, dpi: 200)
        #expect(oursWorst <= 0.2)
        print("measured: ChArUco \(board.summary) PDF at 200 dpi: MarkerKit found \(ours.count) of \(capacity) corners, worst square error \(String(format: "%.3f", oursWorst)) mm")
        print("measured: ChArUco \(board.summary) PDF at 200 dpi: OpenCV found \(found) of \(capacity) corners, worst square error \(String(format: "%.3f", worst)) mm")
    }

    /// The largest difference between a square's side, measured between neighbouring corners, and `square` mm.
    func worstSquareError(_ corners: [CharucoDetection.Corner], columns: Int, square: Double, dpi: Double) -> Double {
        var position: [Int: Point2] = [:]
        for corner in corners { position[corner.id] = corner.point }
        var worst = 0.0
        for (id, p) in position {
            for next in [id % columns + 1 < columns ? id + 1 : nil, id + columns].compactMap({ $0 }) {
                guard let q = position[next] else { continue }
                worst = max(worst, abs(p.distance(to: q) * 25.4 / dpi - square))
            }
        }
        return worst
    }
}

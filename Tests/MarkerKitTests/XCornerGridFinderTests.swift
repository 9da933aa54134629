import Foundation
import CVBridge
import MarkerKitKernels
import Testing
@testable import MarkerKit

/// The corner-grid chessboard finder (XCornerGridFinder, tried before OpenCV's searches): on every real set
/// it finds boards where OpenCV does, in OpenCV's order, and never a board OpenCV would not give.
@Suite struct XCornerGridFinderTests {
    static let sets = ChessboardPhotoRecallTests.sets

    /// Each board the grid finds is OpenCV's board, corner for corner and in OpenCV's order (where a
    /// half-turn maps the board onto itself, OpenCV's order is either; so is ours). Most boards are found.
    @Test func itsBoardsAreOpenCVsInOpenCVsOrder() throws {
        var found = 0, boards = 0, corners = 0, close = 0
        for set in Self.sets {
            let finder = XCornerGridFinder(columns: set.columns, rows: set.rows)
            let symmetric = (set.columns + set.rows) % 2 == 0
            for file in set.files {
                let image = try GrayImage(contentsOf: set.folder.appendingPathComponent(file))
                let opencv = try ChessboardDetector.find(in: image, columns: set.columns, rows: set.rows,
                                                         bridgeMethod: CVB_CHESSBOARD_OPENCV_DEFAULT, halfWindow: 0)
                    ?? ChessboardDetector.quickLook(in: image, columns: set.columns, rows: set.rows)
                if opencv != nil { boards += 1 }
                guard let ours = try finder.find(in: image) else { continue }
                let theirs = try #require(opencv, "\(set.name)/\(file): a board OpenCV's findChessboardCorners does not find")
                found += 1
                // Both refined as the pipeline refines them (cornerSubPix, a fifth of the spacing).
                let half = ChessboardDetector.halfWindow(for: theirs, columns: set.columns)
                let (mine, opencvs) = (try ChessboardDetector.refine(ours, in: image, halfWindow: half), try ChessboardDetector.refine(theirs, in: image, halfWindow: half))
                func distances(_ other: [Point2]) -> [Double] { zip(mine, other).map { $0.distance(to: $1) } }
                let straight = distances(opencvs), turned = distances(opencvs.reversed())
                let d = symmetric && turned.reduce(0, +) < straight.reduce(0, +) ? turned : straight
                // The order: a flip, a transpose or a shift by a corner moves the mean by a square.
                #expect(d.reduce(0, +) / Double(d.count) < 1.5, "\(set.name)/\(file): mean \(d.reduce(0, +) / Double(d.count)) px from OpenCV's corners")
                corners += d.count
                close += d.filter { $0 < 0.05 }.count
            }
        }
        print("measured: x-corner grid found \(found) of the \(boards) boards OpenCV's findChessboardCorners finds; \(close) of \(corners) corners within 0.05 px of OpenCV's, both refined alike")
        #expect(boards >= 100)
        #expect(Double(found) >= 0.85 * Double(boards))
        // A few of OpenCV's own corners are off the board's corner (fisheye 10.jpg by 12 px; cornerSubPix does
        // not bring it back), and symmetric boards' ties (fisheye 4.jpg: the first and last rows level).
        #expect(Double(close) >= 0.97 * Double(corners))
    }

    /// Where the grid finds no board it tells whether the photo shows only part of one, cut by the image's
    /// edge (`ChessboardFinder` then spares OpenCV 4.6's slow searches, which cannot find a cut board either):
    /// it says so on the photos no finder reads (but GoPro's test_image, whose six squares across leave too few
    /// corners to grow a grid from), and never on a photo where any OpenCV finder (4.6 or the newest, classic
    /// or sector-based) finds the board.
    @Test func aBoardCutByTheImagesEdgeIsToldApartFromOneItMisses() throws {
        var cut: [String] = [], misses = 0, without = 0
        for set in Self.sets {
            let finder = XCornerGridFinder(columns: set.columns, rows: set.rows)
            for file in set.files {
                let image = try GrayImage(contentsOf: set.folder.appendingPathComponent(file))
                guard case .none(let cutByTheEdge) = try finder.search(in: image) else { continue }
                if set.openCVFinds(file) {
                    misses += 1
                    #expect(!cutByTheEdge, "\(set.name)/\(file): a board OpenCV finds taken for one cut by the edge")
                } else {
                    without += 1
                    if cutByTheEdge { cut.append("\(set.name)/\(file)") }
                }
            }
        }
        print("measured: of \(without) photos no finder reads, \(cut.count) told cut by the image's edge (\(cut.joined(separator: ", "))); of \(misses) boards the grid leaves to OpenCV, none")
        #expect(without >= 4 && cut.count >= without - 1)
    }

    /// A pattern a row or a column off the board's (smaller: the board would have to be cut; larger: it
    /// would have to be made up) finds nothing on any photo of any set.
    @Test func aPatternThatIsNotTheBoardFindsNothing() throws {
        var tried = 0
        for set in Self.sets {
            for (columns, rows) in [(set.columns - 1, set.rows), (set.columns, set.rows + 1)] where columns >= 3 && rows >= 3 {
                let finder = XCornerGridFinder(columns: columns, rows: rows)
                for file in set.files {
                    let image = try GrayImage(contentsOf: set.folder.appendingPathComponent(file))
                    let found = try finder.find(in: image)
                    #expect(found == nil, "\(set.name)/\(file): a \(columns)x\(rows) board in a photo of a \(set.columns)x\(set.rows) one")
                    tried += 1
                }
            }
        }
        #expect(tried >= 200)
    }

    /// The kernel's candidates are the local maxima of the ChESS response as its definition gives it
    /// (computed here pixel by pixel), on a noisy rendered board and on noise.
    @Test func candidatesAreTheResponsesLocalMaxima() throws {
        var generator = SeededRandom(seed: 5)
        let (w, h) = (97, 83)
        var pixels = [UInt8](repeating: 0, count: w * h)
        for y in 0..<h {
            for x in 0..<w {
                let square = ((x + 3) / 12 + (y + 5) / 12) % 2 == 0
                pixels[y * w + x] = UInt8(clamping: (square ? 60 : 190) + Int.random(in: -25...25, using: &generator))
            }
        }
        let image = GrayImage(width: w, height: h, pixels: pixels)
        let ringX = [5, 5, 4, 2, 0, -2, -4, -5, -5, -5, -4, -2, 0, 2, 4, 5], ringY = [0, 2, 4, 5, 5, 5, 4, 2, 0, -2, -4, -5, -5, -5, -4, -2]
        func response(_ x: Int, _ y: Int) -> Int {
            let v = (0..<16).map { Int(image[x + ringX[$0], y + ringY[$0]]) }
            var sum = 0, diff = 0
            for n in 0..<4 {
                let s: Int = v[n] + v[n + 8] - v[n + 4] - v[n + 12]
                sum += abs(s)
            }
            for n in 0..<8 { diff += abs(v[n] - v[n + 8]) }
            let around: [Int] = [Int(image[x, y]), Int(image[x - 1, y]), Int(image[x + 1, y]), Int(image[x, y - 1]), Int(image[x, y + 1])]
            let local = around.reduce(0, +)
            return 5 * (sum - diff) - abs(5 * v.reduce(0, +) - 16 * local)
        }
        var map = [Int](repeating: 0, count: w * h), most = 0
        for y in 6..<(h - 6) {
            for x in 6..<(w - 6) {
                map[y * w + x] = response(x, y)
                most = max(most, map[y * w + x])
            }
        }
        let threshold = max(200, Int(0.08 * Double(most)))
        var expected: [Point2] = []
        for y in 7..<(h - 7) {
            for x in 7..<(w - 7) {
                let r = map[y * w + x]
                guard r >= threshold, r > map[(y - 1) * w + x - 1], r > map[(y - 1) * w + x], r > map[(y - 1) * w + x + 1], r > map[y * w + x - 1],
                      r >= map[y * w + x + 1], r >= map[(y + 1) * w + x - 1], r >= map[(y + 1) * w + x], r >= map[(y + 1) * w + x + 1] else { continue }
                expected.append(Point2(x: Double(x), y: Double(y)))
            }
        }
        var xs = [Int32](repeating: 0, count: 512), ys = xs, responses = xs
        var count: Int32 = 0
        let status = image.pixels.withUnsafeBufferPointer {
            mkk_chess_candidates($0.baseAddress, Int32(w), Int32(h), Int32(w), 0.08, 200, &xs, &ys, &responses, 512, &count)
        }
        #expect(status == 0)
        let got = (0..<Int(count)).map { Point2(x: Double(xs[$0]), y: Double(ys[$0])) }
        #expect(got == expected)
        #expect(expected.count >= 30, "the board's 7x6 corners and few else")
        for i in 0..<Int(count) { #expect(Int(responses[i]) == response(Int(xs[i]), Int(ys[i]))) }
        // Too little room: how many there are, to call again with.
        var few: Int32 = 0
        let short = image.pixels.withUnsafeBufferPointer {
            mkk_chess_candidates($0.baseAddress, Int32(w), Int32(h), Int32(w), 0.08, 200, &xs, &ys, &responses, 3, &few)
        }
        #expect(short == 0 && few == count)
        let bad = mkk_chess_candidates(nil, Int32(w), Int32(h), Int32(w), 0.08, 200, &xs, &ys, &responses, 512, &few)
        #expect(bad < 0)
    }

    /// PointIndex answers as a look at every point does.
    @Test func pointIndexFindsTheNearestPoints() {
        var generator = SeededRandom(seed: 9)
        var index = PointIndex(cell: 8)
        let points = (0..<400).map { _ in Point2(x: Double.random(in: -50...300, using: &generator), y: Double.random(in: 0...200, using: &generator)) }
        for p in points { index.insert(p) }
        for _ in 0..<200 {
            let q = Point2(x: Double.random(in: -80...330, using: &generator), y: Double.random(in: -30...230, using: &generator))
            let radius = Double.random(in: 1...40, using: &generator)
            let byDistance = points.indices.sorted { points[$0].distance(to: q) < points[$1].distance(to: q) }
            let within = byDistance.filter { points[$0].distance(to: q) <= radius }
            #expect(index.nearest(to: q, within: radius) == within.first)
            #expect(index.nearest(to: q, within: radius, skip: { $0 % 2 == 0 }) == within.first { $0 % 2 == 1 })
            #expect(index.nearest(5, to: q, within: .infinity) == Array(byDistance.prefix(5)))
            #expect(index.nearest(5, to: q, within: radius) == Array(within.prefix(5)))
        }
    }
}

import Foundation
import MarkerKitKernels

/// A chessboard found from its corners alone, before OpenCV's quad search is tried: corner candidates from
/// the ChESS response (`mkk_chess_candidates`), a grid grown from the strongest candidate whose four nearest
/// neighbours make a cross with alternating squares, each next corner looked for where its neighbours put it
/// (a parallelogram of known corners, else the line of two), and the grid kept only when it is exactly the
/// pattern, every pair of neighbouring squares differs in tone the way a chessboard's do, and its rows are
/// regular. The corners are put in OpenCV's order: rows of `columns`, the second row turning clockwise from
/// the first, the first square (between corners 0, 1, columns and columns + 1) dark; where a half-turn maps the
/// board onto itself (columns + rows even) the first row above the last.
///
/// It answers in a fraction of findChessboardCorners' time (a ChESS pass over the image and a few hundred
/// candidates) and answers nil whenever anything is not as a board's corners are: the caller then asks
/// OpenCV, so a board it misses costs time, not the board.
struct XCornerGridFinder {
    let columns: Int
    let rows: Int
    /// Candidates at least this share of the image's strongest response.
    var fraction = 0.08
    /// Seeds tried, strongest first.
    var seeds = 6

    struct Candidate {
        var point: Point2
        var response: Int32
    }

    /// What the search saw: the board, or none; with none, whether a grid it grew shows a board cut by the
    /// image's edge (`cutByTheEdge(_:_:)`: part of a board, which no finder can return whole).
    enum Outcome {
        case board([Point2])
        case none(cutByTheEdge: Bool)
    }

    func find(in image: GrayImage) throws -> [Point2]? {
        if case .board(let corners) = try search(in: image) { return corners }
        return nil
    }

    func search(in image: GrayImage) throws -> Outcome {
        guard columns >= 3, rows >= 3 else { return .none(cutByTheEdge: false) }
        let candidates = try Self.candidates(in: image, fraction: fraction, most: 12 * columns * rows)
        guard candidates.count >= columns * rows / 2 else { return .none(cutByTheEdge: false) }
        var index = PointIndex(cell: 8)
        for c in candidates { index.insert(c.point) }
        let responses = candidates.map { Double($0.response) }
        var cut = false
        for seed in candidates.indices.prefix(seeds) {
            guard let grid = grow(from: seed, index, image) else { continue }
            guard candidates.count >= columns * rows, let ordered = order(grid, index, responses, image) else {
                cut = cut || cutByTheEdge(grid, image)
                continue
            }
            // The response's peak can sit a few pixels from a slanted corner: cornerSubPix with a window a
            // quarter of the spacing (as OpenCV's finder ends with a small one). A corner it leaves where it
            // was (it went back: the move was larger than its window) sends the board to OpenCV.
            let half = max(2, min(6, Int((ChessboardDetector.shortestSpacing(ordered, columns: columns) / 4).rounded(.down))))
            let refined = try ChessboardDetector.refine(ordered, in: image, halfWindow: half, maxIterations: 15, epsilon: 0.05)
            guard zip(refined, ordered).allSatisfy({ $0 != $1 }) else { continue }
            return .board(refined)
        }
        return .none(cutByTheEdge: cut)
    }

    /// Whether a grown grid of half the pattern's corners or more shows a board cut by the image's edge: every
    /// way of laying the pattern over the grid (either orientation, at every offset that covers the grid's
    /// extent, or lies within it where the grid is longer) holds a corner known to be off the image, one the
    /// grid lacks whose place, carried from the two corners before it on a line, is outside the image. No
    /// finder returns a board with a corner off the image.
    private func cutByTheEdge(_ grid: [GridPosition: Point2], _ image: GrayImage) -> Bool {
        guard 2 * grid.count >= columns * rows, let i0 = grid.keys.map(\.i).min(), let i1 = grid.keys.map(\.i).max(),
              let j0 = grid.keys.map(\.j).min(), let j1 = grid.keys.map(\.j).max() else { return false }
        let margin = 2.0
        func off(_ p: Point2) -> Bool {
            p.x < margin || p.y < margin || p.x > Double(image.width - 1) - margin || p.y > Double(image.height - 1) - margin
        }
        func knownOff(_ at: GridPosition) -> Bool {
            guard grid[at] == nil else { return false }
            return Self.steps.contains { di, dj in
                guard let a = grid[GridPosition(at.i - di, at.j - dj)], let b = grid[GridPosition(at.i - 2 * di, at.j - 2 * dj)] else { return false }
                return off(a + a - b)
            }
        }
        // Every placement of a c x r pattern (c along i) over the grid holds a corner known to be off.
        func cut(_ c: Int, _ r: Int) -> Bool {
            for si in min(i0, i1 - c + 1)...max(i0, i1 - c + 1) {
                for sj in min(j0, j1 - r + 1)...max(j0, j1 - r + 1) {
                    var impossible = false
                    for i in si..<(si + c) where !impossible {
                        for j in sj..<(sj + r) where knownOff(GridPosition(i, j)) {
                            impossible = true
                            break
                        }
                    }
                    if !impossible { return false }
                }
            }
            return true
        }
        return cut(columns, rows) && cut(rows, columns)
    }

    /// The local maxima of the response, strongest first, none within 3 px of a stronger one.
    static func candidates(in image: GrayImage, fraction: Double, most: Int) throws -> [Candidate] {
        var capacity = 4096
        while true {
            var xs = [Int32](repeating: 0, count: capacity), ys = xs, responses = xs
            var count: Int32 = 0
            try Bridge.check(image.pixels.withUnsafeBufferPointer {
                mkk_chess_candidates($0.baseAddress, Int32(image.width), Int32(image.height), Int32(image.width), fraction, 200,
                                     &xs, &ys, &responses, Int32(capacity), &count)
            })
            guard Int(count) <= capacity else { capacity = Int(count); continue }
            let found = (0..<Int(count)).map { Candidate(point: Point2(x: Double(xs[$0]), y: Double(ys[$0])), response: responses[$0]) }
                .sorted { $0.response > $1.response }
            var kept: [Candidate] = []
            var near = PointIndex(cell: 4)
            for c in found where kept.count < most && near.nearest(to: c.point, within: 3) == nil {
                near.insert(c.point)
                kept.append(c)
            }
            return kept
        }
    }

    /// A grid position's neighbours: along i and along j.
    private static let steps = [(1, 0), (-1, 0), (0, 1), (0, -1)]

    private func grow(from seed: Int, _ index: PointIndex, _ image: GrayImage) -> [GridPosition: Point2]? {
        guard let square = self.square(at: seed, index, image) else { return nil }
        let points = index.points
        var grid: [GridPosition: Point2] = [GridPosition(0, 0): points[seed], GridPosition(1, 0): points[square.i],
                                            GridPosition(0, 1): points[square.j], GridPosition(1, 1): points[square.ij]]
        var used: Set<Int> = [seed, square.i, square.j, square.ij]
        // (In a fixed order: a Dictionary's is seeded per process, and the grid grown must not depend on it.)
        var queue = [GridPosition(0, 0), GridPosition(1, 0), GridPosition(0, 1), GridPosition(1, 1)]
        let limit = 2 * (columns + 2) * (rows + 2)
        while let at = queue.popLast() {
            for (di, dj) in Self.steps {
                let next = GridPosition(at.i + di, at.j + dj)
                guard grid[next] == nil, let (guess, spacing) = predict(next, from: at, step: (di, dj), grid) else { continue }
                guard let found = index.nearest(to: guess, within: 0.3 * spacing, skip: { used.contains($0) }),
                      edgeContrast(grid[at]!, points[found], image) >= 10 else { continue }
                grid[next] = points[found]
                used.insert(found)
                queue.append(next)
                if grid.count > limit { return nil }
            }
        }
        return grid
    }

    /// A square of the board with the seed at a corner: its neighbours along i and along j (candidates
    /// across an edge between a dark and a light square from it, the two directions apart by 30 degrees or
    /// more, neither more than 2.5 times the other) and the candidate where the square's fourth corner is;
    /// of such squares the smallest. Any corner of the pattern is the corner of a square of it.
    private func square(at seed: Int, _ index: PointIndex, _ image: GrayImage) -> (i: Int, j: Int, ij: Int)? {
        let points = index.points, s = points[seed]
        // The eight nearest candidates 4 px away or more, across an edge from the seed.
        let near = index.nearest(8, to: s, within: .infinity) { points[$0].distance(to: s) < 4 }
            .filter { edgeContrast(s, points[$0], image) >= 10 }
        var best: (Int, Int, Int, Double)?
        for a in near {
            for c in near where c != a {
                let u = points[a] - s, v = points[c] - s
                // One orientation of each pair: v turns clockwise from u (y down).
                guard u.x * v.y - u.y * v.x > 0.5 * u.length * v.length, max(u.length, v.length) < 2.5 * min(u.length, v.length) else { continue }
                let size = u.length + v.length
                guard size < (best?.3 ?? .infinity),
                      let d = index.nearest(to: points[a] + v, within: 0.3 * min(u.length, v.length), skip: { $0 == seed || $0 == a || $0 == c }),
                      edgeContrast(points[a], points[d], image) >= 10, edgeContrast(points[c], points[d], image) >= 10 else { continue }
                best = (a, c, d, size)
            }
        }
        return best.map { ($0.0, $0.1, $0.2) }
    }

    /// Where the corner at `next` should be, from the corner `from` it is a step away from, and the local
    /// spacing: the fourth corner of a parallelogram of known ones, else the line of two.
    private func predict(_ next: GridPosition, from: GridPosition, step: (Int, Int), _ grid: [GridPosition: Point2]) -> (Point2, Double)? {
        let p = grid[from]!
        for (ei, ej) in [(step.1, step.0), (-step.1, -step.0)] {
            if let side = grid[GridPosition(from.i + ei, from.j + ej)], let corner = grid[GridPosition(next.i + ei, next.j + ej)] {
                return (corner + p - side, corner.distance(to: side))
            }
        }
        if let back = grid[GridPosition(from.i - step.0, from.j - step.1)] { return (p + p - back, p.distance(to: back)) }
        return nil
    }

    /// The tone difference across the segment's middle: a chessboard's neighbouring corners have a dark
    /// square on one side of the edge between them and a light one on the other.
    private func edgeContrast(_ a: Point2, _ b: Point2, _ image: GrayImage) -> Double {
        let m = (a + b) * 0.5, n = Point2(x: -(b.y - a.y) * 0.25, y: (b.x - a.x) * 0.25)
        return abs(Self.tone(image, m + n) - Self.tone(image, m - n))
    }

    /// The grid in OpenCV's order, or nil when it is not the pattern or not a chessboard's.
    private func order(_ grown: [GridPosition: Point2], _ index: PointIndex, _ responses: [Double], _ image: GrayImage) -> [Point2]? {
        guard let grid = trimmed(grown, index, responses, image) else { return nil }
        let iRange = grid.keys.map(\.i), jRange = grid.keys.map(\.j)
        let (i0, j0) = (iRange.min()!, jRange.min()!)
        let (ni, nj) = (iRange.max()! - i0 + 1, jRange.max()! - j0 + 1)
        guard grid.count == ni * nj, (ni == columns && nj == rows) || (ni == rows && nj == columns) else { return nil }
        let alongI = ni == columns
        var corners = [Point2](repeating: Point2(x: 0, y: 0), count: columns * rows)
        for (position, point) in grid {
            let (c, r) = alongI ? (position.i - i0, position.j - j0) : (position.j - j0, position.i - i0)
            corners[r * columns + c] = point
        }
        func at(_ c: Int, _ r: Int) -> Point2 { corners[r * columns + c] }
        let u = at(columns - 1, 0) - at(0, 0), v = at(0, 1) - at(0, 0)
        if u.x * v.y - u.y * v.x < 0 {
            corners = (0..<rows).flatMap { r in (0..<columns).reversed().map { at($0, r) } }
        }
        // Every square against its neighbours: a chessboard's alternate.
        var tones = [Double](repeating: 0, count: (columns - 1) * (rows - 1))
        for r in 0..<(rows - 1) {
            for c in 0..<(columns - 1) {
                tones[r * (columns - 1) + c] = Self.tone(image, (at(c, r) + at(c + 1, r) + at(c, r + 1) + at(c + 1, r + 1)) * 0.25)
            }
        }
        let firstDark = tones[0] < tones[1]
        for r in 0..<(rows - 1) {
            for c in 0..<(columns - 1) {
                let dark = ((r + c) % 2 == 0) == firstDark
                let t = tones[r * (columns - 1) + c]
                if c + 1 < columns - 1, (dark ? tones[r * (columns - 1) + c + 1] - t : t - tones[r * (columns - 1) + c + 1]) < 5 { return nil }
                if r + 1 < rows - 1, (dark ? tones[(r + 1) * (columns - 1) + c] - t : t - tones[(r + 1) * (columns - 1) + c]) < 5 { return nil }
            }
        }
        let symmetric = (columns + rows) % 2 == 0
        if symmetric ? corners[(rows - 1) * columns].y < corners[0].y : !firstDark {
            corners.reverse()
        }
        return isSmooth(corners) ? corners : nil
    }

    /// The grid cut down to the pattern where it grew past it (a printed board's outer squares against the
    /// paper's edge or the background make corners too, weaker ones): the outermost row or column of the
    /// weakest response goes (a row with a gap first) until the grid is the pattern's size. Kept only when
    /// every row and column cut was weak, every outermost one kept is strong (each's median response
    /// against 0.4 of the grid's) and the board does not go on past any side (`squaresGoOn`): else the grid
    /// is part of a larger board (a pattern smaller than the board in view, which OpenCV does not find
    /// either) and OpenCV is asked. Nil otherwise.
    private func trimmed(_ grid: [GridPosition: Point2], _ index: PointIndex, _ responses: [Double], _ image: GrayImage) -> [GridPosition: Point2]? {
        func response(_ p: Point2?) -> Double { p.flatMap { index.nearest(to: $0, within: 0.5) }.map { responses[$0] } ?? 0 }
        func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
        for (a, b) in columns == rows ? [(columns, rows)] : [(columns, rows), (rows, columns)] {
            var kept = grid
            var strongestCut = 0.0
            while true {
                let iRange = kept.keys.map(\.i), jRange = kept.keys.map(\.j)
                guard let i0 = iRange.min(), let i1 = iRange.max(), let j0 = jRange.min(), let j1 = jRange.max(),
                      i1 - i0 + 1 >= a, j1 - j0 + 1 >= b else { break }
                let sides: [[GridPosition]] = [(j0...j1).map { GridPosition(i0, $0) }, (j0...j1).map { GridPosition(i1, $0) },
                                               (i0...i1).map { GridPosition($0, j0) }, (i0...i1).map { GridPosition($0, j1) }]
                if i1 - i0 + 1 == a, j1 - j0 + 1 == b {
                    guard kept.count == a * b else { break }
                    let typical = median(kept.values.map(response))
                    let inward = [(1, 0), (-1, 0), (0, 1), (0, -1)]
                    if strongestCut < 0.4 * typical, sides.allSatisfy({ median($0.map { response(kept[$0]) }) >= 0.4 * typical }),
                       !(0..<4).contains(where: { squaresGoOn(beyond: sides[$0], inward: inward[$0], kept, image) }) { return kept }
                    break
                }
                // The sides that may go (a gap counts as no response).
                let may = (0..<4).filter { $0 < 2 ? i1 - i0 + 1 > a : j1 - j0 + 1 > b }
                let k = may.min { median(sides[$0].map { response(kept[$0]) }) < median(sides[$1].map { response(kept[$0]) }) }!
                strongestCut = max(strongestCut, median(sides[k].map { response(kept[$0]) }))
                for position in sides[k] { kept[position] = nil }
            }
        }
        return nil
    }

    /// Whether the board goes on beyond its outermost row of corners (away from the step `inward`): past the
    /// row of outer squares (a step and a half out, each step out scaled as the last two steps differ), squares that alternate in tone by half as much as the
    /// squares just inside the row or more, where a whole board has its margin or the background. Squares
    /// whose outer one is off the image are left out.
    private func squaresGoOn(beyond row: [GridPosition], inward: (Int, Int), _ grid: [GridPosition: Point2], _ image: GrayImage) -> Bool {
        // The alternating differences of neighbouring squares' tones, outside and inside, where the outer
        // squares are on the image.
        var outside = 0.0, inside = 0.0, pairs = 0
        var previous: (Double, Double)?
        for (k, (p, q)) in zip(row, row.dropFirst()).enumerated() {
            guard let a = grid[p], let b = grid[q], let ai = grid[GridPosition(p.i + inward.0, p.j + inward.1)],
                  let bi = grid[GridPosition(q.i + inward.0, q.j + inward.1)], let aii = grid[GridPosition(p.i + 2 * inward.0, p.j + 2 * inward.1)],
                  let bii = grid[GridPosition(q.i + 2 * inward.0, q.j + 2 * inward.1)] else { return false }
            // The next steps out shrink or grow as the last two did (a lens or a slant): ρ, then ρ² of the last.
            let middle = (a + b) * 0.5, step = (a - ai + b - bi) * 0.5, before = (ai - aii + bi - bii) * 0.5
            let rho = min(1.5, max(0.5, step.length / max(before.length, 1e-9)))
            let out = middle + step * (rho + rho * rho / 2)
            let on = out.x >= 1 && out.y >= 1 && out.x <= Double(image.width - 2) && out.y <= Double(image.height - 2)
            let tones = on ? (Self.tone(image, out), Self.tone(image, middle - step * 0.5)) : nil
            if let (o, i) = tones, let (po, pi) = previous {
                let sign = k % 2 == 0 ? 1.0 : -1.0
                outside += sign * (o - po)
                inside += sign * (i - pi)
                pairs += 1
            }
            previous = tones
        }
        // (Where the board leaves the image there is nothing to tell; OpenCV's finder cannot tell either.)
        guard pairs >= 2 else { return false }
        let alternationOutside = abs(outside), alternationInside = abs(inside)
        return alternationOutside >= 0.5 * alternationInside
    }

    /// Whether every corner inside a row or a column lies within a quarter of the local spacing of its two
    /// neighbours' midpoint (a lens or a slant changes the spacing gradually; a corner taken from the wrong
    /// place does not sit between its neighbours).
    private func isSmooth(_ corners: [Point2]) -> Bool {
        func between(_ p: Point2, _ a: Point2, _ b: Point2) -> Bool { p.distance(to: (a + b) * 0.5) <= 0.25 * a.distance(to: b) / 2 }
        for r in 0..<rows {
            for c in 1..<(columns - 1) where !between(corners[r * columns + c], corners[r * columns + c - 1], corners[r * columns + c + 1]) {
                return false
            }
        }
        for c in 0..<columns {
            for r in 1..<(rows - 1) where !between(corners[r * columns + c], corners[(r - 1) * columns + c], corners[(r + 1) * columns + c]) {
                return false
            }
        }
        return true
    }

    /// The mean gray of the 3x3 pixels nearest `p` (0 off the image).
    static func tone(_ image: GrayImage, _ p: Point2) -> Double {
        let x = Int(p.x.rounded()), y = Int(p.y.rounded())
        guard x >= 1, y >= 1, x + 1 < image.width, y + 1 < image.height else { return 0 }
        var sum = 0
        for yy in (y - 1)...(y + 1) {
            for xx in (x - 1)...(x + 1) { sum += Int(image.pixels[yy * image.width + xx]) }
        }
        return Double(sum) / 9
    }
}

private extension Point2 {
    static func + (a: Point2, b: Point2) -> Point2 { Point2(x: a.x + b.x, y: a.y + b.y) }
    static func - (a: Point2, b: Point2) -> Point2 { Point2(x: a.x - b.x, y: a.y - b.y) }
    static func * (a: Point2, k: Double) -> Point2 { Point2(x: a.x * k, y: a.y * k) }
    var length: Double { (x * x + y * y).squareRoot() }
}

/// A corner's place in a grown grid.
struct GridPosition: Hashable {
    let i: Int, j: Int
    init(_ i: Int, _ j: Int) { (self.i, self.j) = (i, j) }
}

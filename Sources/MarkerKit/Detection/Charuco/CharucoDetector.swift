import Foundation

/// Finds a ChArUco board in an image: its markers with MarkerKit's marker detector, then each
/// chessboard corner near them *in the image*. A corner's place is first predicted by a homography local
/// to it (`CornerPrediction`), then found by fitting a model of a blurred corner (`XCornerFit`) to the
/// pixels around it that belong to the four squares only, never to a marker. A corner is reported only
/// when the image holds a corner there: enough contrast, a good fit, edges along the board's lines,
/// close to where it was predicted, and on the grid of the corners found around it. Corners with no
/// marker read next to them are predicted from the corners found around them, so a board whose markers
/// are partly lost (blur, the image edge) still gives its corners. `CharucoDetection.refusals` counts
/// the corners in view that failed a test, by test.
public struct CharucoDetector: Sendable {
    public let board: CharucoBoard
    public var markerDetector: MarkerDetector
    /// Least contrast between the squares, gray levels (half the black-white difference).
    public var minContrast = 6.0
    /// Largest fit RMS as a fraction of the contrast.
    public var maxResidual = 0.35
    /// Largest angle (degrees) between a fitted edge and the board line predicted there.
    public var maxEdgeAngle = 20.0
    /// Largest distance from the prediction, as a fraction of a square's side.
    public var maxShift = 0.25
    /// Largest half size of the window fitted around a corner, pixels.
    public var maxHalfWindow = 16.0
    /// Largest distance of a corner from where the eight corners found around it put it, as a fraction of
    /// a square (2.5 times this where fewer are found).
    public var maxOffGrid = 0.1
    /// Largest blur (σ) of a corner's fit as a multiple of the median of the corners found next to it,
    /// plus 1 px.
    public var maxBlurRatio = 5.0

    public init(board: CharucoBoard, markerDetector: MarkerDetector? = nil) {
        self.board = board
        self.markerDetector = markerDetector ?? MarkerDetector(dictionary: board.dictionary)
    }

    public func detect(in image: GrayImage) throws -> CharucoDetection {
        detection(in: image, markers: try markerDetector.detect(in: image))
    }

    /// The board in `image` from the markers read in it (in the board's dictionary, by any detector):
    /// this board's markers each read once and in their place on the board, and the corners near them.
    public func detection(in image: GrayImage, markers all: [MarkerDetection]) -> CharucoDetection {
        traced(in: image, markers: all).detection
    }

    /// `detection(in:markers:)` with each predicted corner's last trial, by ID.
    func traced(in image: GrayImage, markers all: [MarkerDetection]) -> (detection: CharucoDetection, trials: [Int: Trial]) {
        let count = board.markers.count
        var mine: [MarkerDetection] = [], foreign: [MarkerDetection] = []
        var seen: [Int: Int] = [:]
        for marker in all {
            if marker.id >= board.firstID && marker.id < board.firstID + count { mine.append(marker); seen[marker.id, default: 0] += 1 } else { foreign.append(marker) }
        }
        // An ID read twice cannot be placed: neither copy is used.
        mine.removeAll { seen[$0.id]! > 1 }
        var placed = consistent(mine)
        // Most of the markers out of place: the image shows another board than the spec describes.
        if 2 * placed.count < mine.count { placed = [] }
        foreign += mine.filter { marker in !placed.contains { $0.id == marker.id } }
        let search = cornerSearch(in: image, markers: placed)
        return (CharucoDetection(corners: search.corners, markers: placed, foreignMarkers: foreign, refusals: search.refusals), search.trials)
    }

    /// The markers that sit where the board's layout puts them relative to their neighbours: one
    /// homography fitted to a marker's corners and a neighbour's (within two squares) must put all eight
    /// within a quarter of a marker side of where they were found. A marker in another square than the
    /// layout says leaves at least 0.39 of a side on some corner (fronto-parallel, over every wrong
    /// placement within two squares); the corners of markers read in a blurred close-up (OpenCV 4.6's, σ
    /// 7 px, 105 px markers) left at most 0.11. A marker the most of whose neighbours disagree is not of
    /// this board as the spec describes it (another layout, or a marker of another board with the same
    /// ID); a marker with no neighbour found is kept. (Each marker's own homography carried to its
    /// neighbours instead missed them by up to 1.6 sides there: four blurred corners fix its perspective
    /// poorly, and two squares away magnify that.) When fewer than half the markers fit, none is used:
    /// the board is not the one described.
    func consistent(_ markers: [MarkerDetection]) -> [MarkerDetection] {
        let placed = board.markers
        func square(_ m: MarkerDetection) -> CharucoBoard.PlacedMarker { placed[m.id - board.firstID] }
        // A pair agrees or not whichever of the two asks (the same eight points), so each is fitted once.
        var agree = [Int](repeating: 0, count: markers.count), disagree = agree
        for i in markers.indices {
            for j in (i + 1)..<max(markers.count, i + 1) where markers[j].id != markers[i].id {
                let a = square(markers[i]), b = square(markers[j])
                guard abs(a.column - b.column) <= 2, abs(a.row - b.row) <= 2 else { continue }
                let from = a.corners + b.corners, to = markers[i].corners + markers[j].corners
                let error = Homography(from: from, to: to).map { h in zip(from, to).map { h.map($0).distance(to: $1) }.max() ?? .infinity } ?? .infinity
                if error <= (markers[i].meanSide + markers[j].meanSide) / 8 {
                    agree[i] += 1
                    agree[j] += 1
                } else {
                    disagree[i] += 1
                    disagree[j] += 1
                }
            }
        }
        return markers.indices.filter { agree[$0] >= disagree[$0] }.map { markers[$0] }
    }

    /// The board's corners found in `image` near `markers` (this board's, any detector's), by ID.
    public func corners(in image: GrayImage, markers: [MarkerDetection]) -> [CharucoDetection.Corner] {
        cornerSearch(in: image, markers: markers).corners
    }

    /// What the corner search did with one corner it predicted: the fit, and the test it failed (nil: found).
    struct Trial {
        var guess: Point2
        var fit: XCornerFit.Result?
        var refusal: CharucoDetection.Refusal?
        /// The fit's sigma, for a corner found.
        var sigma: Double? = nil
    }

    /// The corners found, the refusals by reason, and each predicted corner's last trial by ID.
    func cornerSearch(in image: GrayImage, markers: [MarkerDetection])
        -> (corners: [CharucoDetection.Corner], refusals: [CharucoDetection.Refusal: Int], trials: [Int: Trial]) {
        let prediction = CornerPrediction(board: board, markers: markers)
        let total = (board.squaresX - 1) * (board.squaresY - 1)
        var found: [Int: Point2] = [:], trials: [Int: Trial] = [:]
        var fit = XCornerFit()
        var nearMarkers = Set<Int>()
        for id in 0..<total {
            guard let h = prediction.fromMarkers(corner: id) else { continue }
            nearMarkers.insert(id)
            let trial = refine(id, homography: h, prediction: prediction, in: image, fit: &fit)
            trials[id] = trial
            if trial.refusal == nil, let r = trial.fit { found[id] = r.point }
        }
        // Corners no read marker is near: from the corners found around them, repeated while it finds more.
        // A corner is tried again only when more corners were found within two squares of it since its
        // last try: with the same ones around it the prediction, and so the fit, would be the same.
        var grew = !found.isEmpty
        var triedWith: [Int: Int] = [:]
        let columns = board.squaresX - 1, rows = board.squaresY - 1
        func foundAround(_ id: Int) -> Int {
            let cx = id % columns, cy = id / columns
            var n = 0
            for y in max(0, cy - 2)...min(rows - 1, cy + 2) {
                for x in max(0, cx - 2)...min(columns - 1, cx + 2) where found[y * columns + x] != nil { n += 1 }
            }
            return n
        }
        while grew {
            grew = false
            for id in 0..<total where found[id] == nil {
                let around = foundAround(id)
                guard triedWith[id] != around else { continue }
                triedWith[id] = around
                guard let h = prediction.fromCorners(corner: id, found: found) else { continue }
                let trial = refine(id, homography: h, prediction: prediction, in: image, fit: &fit)
                trials[id] = trial
                guard trial.refusal == nil, let r = trial.fit else { continue }
                found[id] = r.point
                grew = true
            }
        }
        dropBlurred(&found, &trials)
        dropOffGrid(&found, &trials, prediction: prediction)
        dropLoose(&found, &trials, prediction: prediction, nearMarkers: nearMarkers)
        // Refusals of corners the image shows: one predicted outside it is not in view, not refused.
        var refusals: [CharucoDetection.Refusal: Int] = [:]
        for trial in trials.values {
            guard let r = trial.refusal, trial.guess.x >= 0, trial.guess.y >= 0,
                  trial.guess.x <= Double(image.width - 1), trial.guess.y <= Double(image.height - 1) else { continue }
            refusals[r, default: 0] += 1
        }
        return (found.keys.sorted().map { CharucoDetection.Corner(id: $0, point: found[$0]!, sigma: trials[$0]?.sigma) }, refusals, trials)
    }

    /// Drops corners fitted with a blur far wider than the corners found next to them.
    private func dropBlurred(_ found: inout [Int: Point2], _ trials: inout [Int: Trial]) {
        let columns = board.squaresX - 1
        // Defocus changes little from one corner to the next (a square away σ differed by at most 1.2
        // times on the GoPro photos, 4 times on the most blurred close-ups): a corner fitted with a blur
        // far wider than the corners around it fitted a smooth patch of something else, as one did 20 px
        // off in the black beyond a k1 = -0.4 lens's range (σ 6.2 px, its neighbours 0.3).
        let blurred = found.keys.filter { id in
            guard let sigma = trials[id]?.fit?.blur else { return false }
            var around: [Double] = []
            for dy in -1...1 {
                for dx in -1...1 where dx != 0 || dy != 0 {
                    let x = id % columns + dx, y = id / columns + dy, n = y * columns + x
                    guard x >= 0, x < columns, y >= 0, y < board.squaresY - 1, found[n] != nil, let b = trials[n]?.fit?.blur else { continue }
                    around.append(b)
                }
            }
            guard !around.isEmpty else { return false }
            return sigma > maxBlurRatio * around.sorted()[around.count / 2] + 1
        }
        for id in blurred { found[id] = nil; trials[id]?.refusal = .neighbours }
    }

    /// Drops, worst first, corners off the grid the corners found around them make.
    private func dropOffGrid(_ found: inout [Int: Point2], _ trials: inout [Int: Trial], prediction: CornerPrediction) {
        let columns = board.squaresX - 1
        // A corner fitted to something else than its corner is off the grid the corners around it make:
        // drop the corner farthest from where its neighbours put it (in multiples of its limit), while
        // one is beyond its limit, and look again at those near it (a corner off the grid also moves its
        // neighbours' predictions, less than its own). The limit is `maxOffGrid` of a square where the
        // neighbours surround the corner, 2.5 times that where they extrapolate to it.
        var offGrid: [Int: Double] = [:]
        func measure(_ id: Int) {
            guard found[id] != nil, let p = prediction.fromNeighbours(corner: id, found: found) else { offGrid[id] = nil; return }
            offGrid[id] = found[id]!.distance(to: p.point) / p.square / (p.interpolated ? maxOffGrid : 2.5 * maxOffGrid)
        }
        for id in found.keys { measure(id) }
        while let (worst, off) = offGrid.max(by: { $0.value < $1.value }), off > 1 {
            found[worst] = nil
            offGrid[worst] = nil
            trials[worst]?.refusal = .neighbours
            for id in Array(offGrid.keys) where abs(id % columns - worst % columns) <= 2 && abs(id / columns - worst / columns) <= 2 { measure(id) }
        }
    }

    /// Drops corners grown from corners alone once those left around them cannot place them.
    private func dropLoose(_ found: inout [Int: Point2], _ trials: inout [Int: Trial], prediction: CornerPrediction, nearMarkers: Set<Int>) {
        // A corner no read marker is near was predicted from corners around it: when those are gone
        // (refused above) so that the ones left cannot say where it should be, nothing holds it on the
        // board's grid any more (on a blurred close-up, cal14 of pyCamSet, two such corners 35 and 52 px
        // off were kept after the two wrong corners they were grown from were dropped).
        var loose = true
        while loose {
            loose = false
            for id in Array(found.keys) where !nearMarkers.contains(id) && prediction.fromNeighbours(corner: id, found: found) == nil {
                found[id] = nil
                trials[id]?.refusal = .neighbours
                loose = true
            }
        }
    }

    /// Corner `id` fitted in the image near where `homography` puts it: the fit, and the test that shows
    /// the image holds no corner there (nil when it does).
    private func refine(_ id: Int, homography h: Homography, prediction: CornerPrediction, in image: GrayImage,
                        fit: inout XCornerFit) -> Trial {
        let window: CornerWindow
        switch CornerWindow.make(id, homography: h, prediction: prediction, board: board, maxHalfWindow: maxHalfWindow, image: image) {
        case .success(let made): window = made
        case .failure(let refusal): return Trial(guess: h.map(prediction.position(of: id)), fit: nil, refusal: refusal.reason)
        }
        let guess = window.guess
        // The coarse fit's pixels (even rows and columns) written alone where there are enough of them: the
        // same pixels `fit(coarse:)` would pick from the whole window, for a quarter of the writing.
        guard window.fill(&fit, image: image, centre: guess, axes: nil, every: 2) else { return Trial(guess: guess, fit: nil, refusal: .window) }
        let start: XCornerFit.Result?
        if fit.xs.count >= XCornerFit.coarsePixels {
            start = fit.coarseFit(from: guess, edges: (window.du, window.dv), blur: 0.7)
        } else {
            _ = window.fill(&fit, image: image, centre: guess, axes: nil)
            start = fit.fit(from: guess, edges: (window.du, window.dv), blur: 0.7, coarse: true)
        }
        guard var r = start else { return Trial(guess: guess, fit: nil, refusal: fit.xs.count < 36 ? .window : .fit) }
        // Again about the corner found, along the edges found (the prediction can be off by a pixel or two
        // where the lens bends the board most), from the coarse fit; where that window cannot be had, on the
        // first window's pixels.
        let axes = window.boardAxes(fittedAngles: r.angles)
        var refitted = false
        if r.point.distance(to: guess) < Double(window.span), window.fill(&fit, image: image, centre: r.point, axes: axes),
           let again = fit.fit(again: r) {
            r = again
            refitted = true
        } else if window.fill(&fit, image: image, centre: guess, axes: nil), let again = fit.fit(again: r) {
            r = again
        }
        let refused = refusal(of: r, window: window, image: image)
        // The sigma of a corner found, from the pixels its fit used.
        guard refused == nil, refitted || window.fill(&fit, image: image, centre: guess, axes: nil) else { return Trial(guess: guess, fit: r, refusal: refused) }
        return Trial(guess: guess, fit: r, refusal: nil, sigma: fit.sigma(of: r))
    }

    /// Why the image holds no corner where the fit says, or nil when it does: contrast, fit, polarity, blur,
    /// position, edges along the board's lines.
    private func refusal(of r: XCornerFit.Result, window w: CornerWindow, image: GrayImage) -> CharucoDetection.Refusal? {
        let s = board.square.millimetres
        let contrast = abs(r.contrast)
        guard contrast >= minContrast else { return .contrast }
        guard r.rms <= maxResidual * contrast else { return .residual }
        // Brighter than the mean towards the centre of a square that holds a marker (white near the
        // corner), as the model's sign says there: c * (n1 . t) * (n2 . t) > 0.
        guard let white = w.marked.firstIndex(of: true) else { return .window }
        let (sx, sy) = (white % 2 == 1 ? 0.5 : -0.5, white >= 2 ? 0.5 : -0.5)
        let towards = Point2(x: s * (sx * w.du.x + sy * w.dv.x), y: s * (sx * w.du.y + sy * w.dv.y))
        let sides = [r.angles.0, r.angles.1].map { cos($0) * towards.x + sin($0) * towards.y }
        guard r.contrast * sides[0] * sides[1] > 0 else { return .polarity }
        // The model's white squares are white to the window's edge, but each holds a marker a margin away
        // from the corner's edges: a blur wider than that margin carries the marker's black border into
        // the fit and pulls the corner (docs/MEASUREMENTS.md, "ChArUco boards": the error against blur).
        let margin = (s - board.marker.millimetres) / 2 * w.pixelsPerMM
        guard r.blur <= margin, r.blur < w.reach * w.pixelsPerMM else { return .blur }
        // Inside the image (a fit run off past its edge once ended 6 px outside it), and near the prediction.
        guard r.point.x >= 0, r.point.y >= 0, r.point.x <= Double(image.width - 1), r.point.y <= Double(image.height - 1),
              r.point.distance(to: w.guess) <= maxShift * s * w.pixelsPerMM else { return .shift }
        let normals = [r.angles.0, r.angles.1].map { Point2(x: cos($0), y: sin($0)) }
        let limit = cos((90 - maxEdgeAngle) * Double.pi / 180)
        func along(_ n: Point2, _ e: Point2) -> Double { abs(n.x * e.x + n.y * e.y) / (e.x * e.x + e.y * e.y).squareRoot() }
        // Each fitted edge lies along one board line: its normal is near-perpendicular to that line's direction.
        let (du, dv) = (w.du, w.dv)
        let fits = (along(normals[0], du) <= limit && along(normals[1], dv) <= limit) || (along(normals[0], dv) <= limit && along(normals[1], du) <= limit)
        return fits ? nil : .edgeAngle
    }
}

/// The pixels a ChArUco corner is fitted on: the square of half side `reach` (board millimetres) about
/// the predicted corner, half a square at most, less the two markers that touch it and a pixel and a
/// half around them for blur. Those two markers sit in opposite squares, so the window is symmetric
/// about the corner, as the corner itself is.
private struct CornerWindow {
    /// The predicted corner in the image, and on the board.
    let guess: Point2, onBoard: Point2
    /// The local homography's derivatives along the board's axes (pixels per board millimetre).
    let du: Point2, dv: Point2
    let back: Homography
    let pixelsPerMM: Double
    let reach: Double, clear: Double
    /// Which of the four squares about the corner hold a marker: (u > 0, v > 0) picks the square.
    let marked: [Bool]
    /// Half the window's side in pixels.
    let span: Int

    struct Refused: Error { let reason: CharucoDetection.Refusal }

    static func make(_ id: Int, homography h: Homography, prediction: CornerPrediction, board: CharucoBoard, maxHalfWindow: Double,
                     image: GrayImage) -> Result<CornerWindow, Refused> {
        let b = prediction.position(of: id)
        let guess = h.map(b)
        let refused = Result<CornerWindow, Refused>.failure(Refused(reason: .window))
        guard guess.x.isFinite, guess.y.isFinite, let back = h.inverse else { return refused }
        let (du, dv) = h.jacobian(at: b)
        let pixelsPerMM = (abs(du.x * dv.y - du.y * dv.x)).squareRoot()
        guard pixelsPerMM > 0 else { return refused }
        let s = board.square.millimetres, keep = 1.5 / pixelsPerMM
        let clear = (s - board.marker.millimetres) / 2 - keep
        guard clear > 0 else { return refused }
        var reach = min(s / 2 - keep, maxHalfWindow / pixelsPerMM)
        // The window's extent in pixels, and kept inside the image (shrunk evenly about the corner).
        let extent = reach * max(abs(du.x) + abs(dv.x), abs(du.y) + abs(dv.y))
        let room = min(guess.x, guess.y, Double(image.width - 1) - guess.x, Double(image.height - 1) - guess.y) - 1
        guard room > 1.5 else { return refused }
        if extent > room { reach *= room / extent }
        guard reach * pixelsPerMM >= 2.5 else { return refused }
        let columns = board.squaresX - 1, cx = id % columns, cy = id / columns
        let marked = [(0, 0), (1, 0), (0, 1), (1, 1)].map { board.holdsMarker(column: cx + $0.0, row: cy + $0.1) }
        let span = Int((reach * max(abs(du.x) + abs(dv.x), abs(du.y) + abs(dv.y))).rounded(.up)) + 1
        return .success(CornerWindow(guess: guess, onBoard: b, du: du, dv: dv, back: back, pixelsPerMM: pixelsPerMM, reach: reach,
                                     clear: clear, marked: marked, span: span))
    }

    func contains(_ u: Double, _ v: Double) -> Bool {
        guard abs(u) < reach, abs(v) < reach else { return false }
        return !marked[(u > 0 ? 1 : 0) + (v > 0 ? 2 : 0)] || min(abs(u), abs(v)) < clear
    }

    /// The window's pixels into `fit`: those within `reach` of `centre` along both board axes, the axes
    /// those of the homography (`axes` nil) or of the edges found, (u, v) -> centre + u a + v b.
    /// `every`: only pixels whose x and y are both multiples of it.
    func fill(_ fit: inout XCornerFit, image: GrayImage, centre: Point2, axes: (Point2, Point2)?, every: Int = 1) -> Bool {
        let x0 = max(0, Int(centre.x.rounded()) - span), x1 = min(image.width - 1, Int(centre.x.rounded()) + span)
        let y0 = max(0, Int(centre.y.rounded()) - span), y1 = min(image.height - 1, Int(centre.y.rounded()) + span)
        guard x0 <= x1, y0 <= y1 else {
            fit.reset()
            return false
        }
        // With axes: board coordinates from the inverse of the affine map.
        let inverse: (Double, Double, Double, Double)? = axes.flatMap { a, b in
            let det = a.x * b.y - a.y * b.x
            return abs(det) > 1e-12 ? (b.y / det, -b.x / det, -a.y / det, a.x / det) : nil
        }
        // Board coordinates along a row: (a + b x, c + d x) / (e + f x) for the homography; for the axes,
        // the same with e = 1, f = 0.
        let h = back.h
        let marks = (marked[0], marked[1], marked[2], marked[3])
        image.pixels.withUnsafeBufferPointer { pixels in
            fit.fill(capacity: (x1 - x0 + 1) * (y1 - y0 + 1)) { xs, ys, values in
                var count = 0
                for y in stride(from: (y0 + every - 1) / every * every, through: y1, by: every) {
                    let fy = Double(y)
                    var a: Double, b: Double, c: Double, d: Double, e: Double, f: Double
                    if let m = inverse {
                        let dy = fy - centre.y
                        (a, b, c, d, e, f) = (m.1 * dy - m.0 * centre.x, m.0, m.3 * dy - m.2 * centre.x, m.2, 1, 0)
                    } else {
                        (a, b, c, d, e, f) = (h[1] * fy + h[2], h[0], h[4] * fy + h[5], h[3], h[7] * fy + h[8], h[6])
                    }
                    if inverse == nil { (a, c) = (a - onBoard.x * e, c - onBoard.y * e); (b, d) = (b - onBoard.x * f, d - onBoard.y * f) }
                    // w kept positive (a homography's scale may be negative; its sign does not change
                    // within a window), so that the row's range is bounds linear in x.
                    if e + f * centre.x < 0 { (a, b, c, d, e, f) = (-a, -b, -c, -d, -e, -f) }
                    guard let range = XCornerFit.rowRange(a, b, c, d, e, f, reach: reach, within: x0, x1) else { continue }
                    let first = (range.lowerBound + every - 1) / every * every, row = y * image.width
                    @inline(__always) func keep(_ x: Int, _ u: Double, _ v: Double) {
                        guard abs(u) < reach, abs(v) < reach else { return }
                        let marker = u > 0 ? (v > 0 ? marks.3 : marks.1) : (v > 0 ? marks.2 : marks.0)
                        guard !marker || min(abs(u), abs(v)) < clear else { return }
                        xs[count] = Double(x)
                        ys[count] = fy
                        values[count] = Double(pixels[row + x])
                        count += 1
                    }
                    // The fitted axes map pixels affinely (f = 0, e = 1): no division a pixel.
                    if f == 0, e == 1 {
                        for k in 0..<max(0, (range.upperBound - first) / every + 1) {
                            let x = first + k * every, fx = Double(x)
                            keep(x, a + b * fx, c + d * fx)
                        }
                    } else {
                        for k in 0..<max(0, (range.upperBound - first) / every + 1) {
                            let x = first + k * every, fx = Double(x), w = 1 / (e + f * fx)
                            keep(x, (a + b * fx) * w, (c + d * fx) * w)
                        }
                    }
                }
                return count
            }
        }
        return true
    }

    /// The fitted edges as board axes: each edge's direction, scaled as the homography scales the board
    /// axis it lies along.
    func boardAxes(fittedAngles angles: (Double, Double)) -> (Point2, Point2) {
        let edges = [angles.0, angles.1].map { Point2(x: -sin($0), y: cos($0)) }
        func aligned(_ e: Point2, _ axis: Point2) -> Point2 {
            let length = (axis.x * axis.x + axis.y * axis.y).squareRoot(), dot = e.x * axis.x + e.y * axis.y
            return Point2(x: (dot < 0 ? -e.x : e.x) * length, y: (dot < 0 ? -e.y : e.y) * length)
        }
        let firstAlongU = abs(edges[0].x * du.x + edges[0].y * du.y) / du.distance(to: Point2(x: 0, y: 0))
            >= abs(edges[1].x * du.x + edges[1].y * du.y) / du.distance(to: Point2(x: 0, y: 0))
        return firstAlongU ? (aligned(edges[0], du), aligned(edges[1], dv)) : (aligned(edges[1], du), aligned(edges[0], dv))
    }
}

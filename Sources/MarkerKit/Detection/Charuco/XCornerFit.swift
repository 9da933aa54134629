import Foundation
import MarkerKitKernels

/// Finds a chessboard corner (where two black and two white squares meet) in the image by fitting a
/// model of it to the pixels around a guess: two straight edges through the corner point, blurred by a
/// Gaussian, `m + c * erf(d1 / (σ√2)) * erf(d2 / (σ√2))` with d1, d2 the signed distances to the edges.
/// Nine parameters (the point, the two edge directions, each edge's curvature, mean, contrast, blur)
/// are solved by Levenberg-Marquardt; the curvature lets the edges bend as a strong lens bends them near
/// the image corners, where straight edges would pull the point towards the inside of the bend. The model is exact for a blurred corner whose edges are perpendicular, and for
/// any angle it is symmetric about the corner as the corner itself is, so on a window centred on the
/// corner its misfit does not move the point. Only pixels the caller chose are used: none of a marker
/// next to the corner.
struct XCornerFit {
    struct Result {
        var point: Point2
        /// Edge normals' angles (radians).
        var angles: (Double, Double)
        var mean: Double
        var contrast: Double
        var blur: Double
        /// RMS of the residuals, gray levels.
        var rms: Double
        /// Each edge's curvature (its distance grows by curvature * t^2 at t along it).
        var curvatures: (Double, Double) = (0, 0)
        /// The blur's third cumulants along x and y (px³), with `modelsSkew`; 0 otherwise.
        var skews: (Double, Double) = (0, 0)
        /// JᵀJ at the fit's last pass, and how many pixels it was summed over (`sigma(of:)` uses it when
        /// the pixels held are still those).
        var normal: [Double] = [], pixels = 0
    }

    /// Whether the blur may be lopsided: bilinear resampling at a fractional phase f blurs with two taps,
    /// 1 - f and f, whose mean is the shift but whose median is not, so a symmetric edge model put each
    /// edge at the median, off by up to a few hundredths of a pixel in a pattern fixed to the image's
    /// pixel grid (a camera's scaler, a digital zoom, an undistorted picture). With it, each edge's profile
    /// carries the blur's skewness (the Edgeworth term of its third cumulant along the edge's normal, from
    /// one cumulant along x and one along y, since resampling is done axis by axis) and the point is the
    /// edges' mean, where cornerSubPix's gradients put it.
    var modelsSkew = false
    private var parameterCount: Int { modelsSkew ? 11 : 9 }

    /// The blur is held at or above what a pixel's own area gives an edge (a box of one pixel has the
    /// spread of a Gaussian of σ 0.29): below it the model can fit a sharp render's mixed pixels with an
    /// edge snapped between pixels.
    let minimumBlur = 0.3
    /// The fit ends when a step moves the point less than this (px). The fit converges about tenfold per
    /// step on most corners, so the point is then within 0.0001 px of its end; on sharp ones (blur at
    /// its floor) about twofold, within 0.001 px. 1e-5 cost a third more passes; OpenCV's 13 left samples
    /// calibrate to the same RMS (0.1632 px) and fx within 0.01 px of it (its sigma: 0.54 px).
    var tolerance = 5e-4

    /// Pixel coordinates and their gray values.
    var xs: [Double] = [], ys: [Double] = [], values: [Double] = []

    mutating func reset() {
        xs.removeAll(keepingCapacity: true)
        ys.removeAll(keepingCapacity: true)
        values.removeAll(keepingCapacity: true)
    }

    /// Replaces the pixels with those `write` puts through the three pointers (room for `capacity`),
    /// returning how many: a window written without an append per pixel, into arrays made at that size
    /// uninitialised (growing the old ones with zeros first cost a sixth as much as writing the window).
    mutating func fill(capacity: Int, _ write: (UnsafeMutablePointer<Double>, UnsafeMutablePointer<Double>, UnsafeMutablePointer<Double>) -> Int) {
        guard capacity > 0 else { return reset() }
        var count = 0
        // The first array's initializer fills all three (the count is known only once the window is written).
        var ys = [Double](), values = [Double]()
        xs = [Double](unsafeUninitializedCapacity: capacity) { x, xCount in
            ys = [Double](unsafeUninitializedCapacity: capacity) { y, yCount in
                values = [Double](unsafeUninitializedCapacity: capacity) { v, vCount in
                    count = min(capacity, max(0, write(x.baseAddress!, y.baseAddress!, v.baseAddress!)))
                    vCount = count
                }
                yCount = count
            }
            xCount = count
        }
        self.ys = ys
        self.values = values
    }

    /// The pixels of a row a window may hold: the x in `low...high` where |(a + b x) / w| and |(c + d x) / w|
    /// (a pixel's board coordinates about the corner, w = e + f x > 0 along the row; e = 1, f = 0 for an
    /// affine map) both stay below `reach`, each bound linear in x; a pixel wider for rounding, so each
    /// pixel is still to be tested. Nil when none.
    static func rowRange(_ a: Double, _ b: Double, _ c: Double, _ d: Double, _ e: Double, _ f: Double, reach: Double,
                         within low: Int, _ high: Int) -> ClosedRange<Int>? {
        var low = Double(low), high = Double(high)
        func below(_ p: Double, _ q: Double) { // p x < q
            if p > 1e-15 {
                high = min(high, (q / p).rounded(.up))
            } else if p < -1e-15 {
                low = max(low, (q / p).rounded(.down))
            } else if q <= 0 {
                (low, high) = (1, 0)
            }
        }
        below(b - reach * f, reach * e - a)
        below(-(b + reach * f), a + reach * e)
        below(d - reach * f, reach * e - c)
        below(-(d + reach * f), c + reach * e)
        return low <= high ? Int(low)...Int(high) : nil
    }

    /// Fits from a start point and the two edges' directions there (any length); nil when the solve
    /// fails. Levenberg-Marquardt: each trial's cost and the normal equations at it come from one pass
    /// over the pixels (`mkk_xcorner_pass`), which is all the fit's time.
    ///
    /// `coarse`: a start for `fit(again:)`, not a result: from the pixels of even column and even row only
    /// (a quarter, where 64 or more are left), without the blur's skew, and ended once a step moves the
    /// point less than 0.01 px. (A skew fitted to every other pixel is not the image's: with it the coarse
    /// fit rejected ten times as many steps, and the fit after it took more.)
    /// Every corner is fitted twice (the second time about the point found), and the first fit took as
    /// many passes over its pixels as both the others; started from the coarse fit, the second ends at
    /// the same corner.
    func fit(from start: Point2, edges: (Point2, Point2), blur: Double, coarse: Bool = false, iterations: Int = 30) -> Result? {
        guard xs.count >= 36 else { return nil }
        if coarse {
            var quarter = XCornerFit()
            quarter.xs.reserveCapacity(xs.count / 4 + 8)
            quarter.ys.reserveCapacity(xs.count / 4 + 8)
            quarter.values.reserveCapacity(xs.count / 4 + 8)
            for i in xs.indices where Int(xs[i]) & 1 == 0 && Int(ys[i]) & 1 == 0 {
                quarter.xs.append(xs[i])
                quarter.ys.append(ys[i])
                quarter.values.append(values[i])
            }
            if quarter.xs.count >= Self.coarsePixels { return quarter.coarseFit(from: start, edges: edges, blur: blur, iterations: iterations) }
        }
        // Parameters: x0, y0, normal angle 1, normal angle 2, mean, contrast, sigma, curvature 1, curvature 2.
        // With modelsSkew, the blur's third cumulants along x and y.
        var q = [start.x, start.y, atan2(edges.0.x, -edges.0.y), atan2(edges.1.x, -edges.1.y), 0, 0, max(blur, 0.4), 0, 0, 0, 0]
        let n = parameterCount
        var jtj = [Double](repeating: 0, count: n * n), jtr = [Double](repeating: 0, count: n)
        // Mean and contrast for the start geometry, a linear least-squares fit: with both at 0 the pass's
        // normal equations hold its sums (rows 4 and 5: 1 and the model's basis; Jᵀr: the values).
        guard pass(q, jtj: &jtj, jtr: &jtr) != nil else { return nil }
        let (s1, sg, sgg, sv, sgv) = (jtj[4 * n + 4], jtj[4 * n + 5], jtj[5 * n + 5], jtr[4], jtr[5])
        let det = s1 * sgg - sg * sg
        guard abs(det) > 1e-9 else { return nil }
        q[4] = (sgg * sv - sg * sgv) / det
        q[5] = (s1 * sgv - sg * sv) / det
        return solve(from: q, iterations: iterations)
    }

    /// The fewest pixels a coarse fit is run on: with fewer even ones, `fit(coarse:)` uses them all.
    static let coarsePixels = 64

    /// `fit(coarse: true)`'s fit on the pixels held, which the caller has already thinned (those of even
    /// column and even row of a window): without the blur's skew, ended once a step moves the point less
    /// than 0.01 px.
    mutating func coarseFit(from start: Point2, edges: (Point2, Point2), blur: Double, iterations: Int = 30) -> Result? {
        let (skew, settled) = (modelsSkew, tolerance)
        (modelsSkew, tolerance) = (false, 0.01)
        defer { (modelsSkew, tolerance) = (skew, settled) }
        return fit(from: start, edges: edges, blur: blur, iterations: iterations)
    }

    /// Fits again from a fit's result (the pixels held now may be another window about it): its point,
    /// edges, blur and tones are the start, so a few steps finish it. The curvatures and skews start at 0,
    /// as a fit from scratch starts them: a coarse fit's, from a quarter of the pixels, carried over moved
    /// OpenCV's sample calibration from RMS 0.1632 to 0.1667 px.
    mutating func fit(again previous: Result, iterations: Int = 30) -> Result? {
        guard xs.count >= 36 else { return nil }
        putFarPixelsLast(of: previous)
        let q = [previous.point.x, previous.point.y, previous.angles.0, previous.angles.1, previous.mean, previous.contrast,
                 max(previous.blur, minimumBlur), 0, 0, 0, 0]
        return solve(from: q, iterations: iterations)
    }

    /// The pixels reordered: those far from both of `r`'s edges (where the pass needs only the tones) after
    /// the others, so that the pass meets them eight at a time. Only the order changes.
    private mutating func putFarPixelsLast(of r: Result) {
        let (c1, s1, c2, s2) = (cos(r.angles.0), sin(r.angles.0), cos(r.angles.1), sin(r.angles.1))
        // A little beyond the pass's own bound (3.5 blurs' √2), so that a pixel put last stays far as the fit moves.
        let far = 3.8 * (2.0).squareRoot() * max(r.blur, minimumBlur)
        let (px, py) = (r.point.x, r.point.y)
        xs.withUnsafeMutableBufferPointer { x in
            ys.withUnsafeMutableBufferPointer { y in
                values.withUnsafeMutableBufferPointer { v in
                    var end = x.count
                    var i = 0
                    while i < end {
                        let dx = x[i] - px, dy = y[i] - py
                        if abs(c1 * dx + s1 * dy) > far && abs(c2 * dx + s2 * dy) > far {
                            end -= 1
                            x.swapAt(i, end)
                            y.swapAt(i, end)
                            v.swapAt(i, end)
                        } else {
                            i += 1
                        }
                    }
                }
            }
        }
    }

    /// Levenberg-Marquardt from `q`.
    private func solve(from start: [Double], iterations: Int) -> Result? {
        var q = start
        let n = parameterCount
        var jtj = [Double](repeating: 0, count: n * n), jtr = [Double](repeating: 0, count: n)
        guard var cost = pass(q, jtj: &jtj, jtr: &jtr) else { return nil }
        var trialJtJ = jtj, trialJtr = jtr
        var step = [Double](repeating: 0, count: n), trial = q
        // The damping: Nielsen's rule (down by up to three times after a step as good as its linear model
        // foretold, up by a doubling factor after a failed one). Dropping it tenfold after every accepted
        // step made a sharp corner's fit (blur at its floor) swing between a failed and an accepted step.
        var lambda = 1e-3, raise = 2.0
        for _ in 0..<iterations {
            var improved = false
            for _ in 0..<8 {
                // With the blur at its floor and the step pushing it below, the step with the blur held (a
                // step computed for a blur that is then clipped is off in every parameter).
                guard mkk_xcorner_step(jtj, jtr, Int32(n), lambda, 0, &step) == 0 else { lambda *= 10; continue }
                if q[6] <= minimumBlur, step[6] < 0, mkk_xcorner_step(jtj, jtr, Int32(n), lambda, 7, &step) != 0 { lambda *= 10; continue }
                for a in 0..<n { trial[a] = q[a] + step[a] }
                trial[6] = max(minimumBlur, min(trial[6], 20))
                let moved = abs(step[0]) + abs(step[1])
                // A step that moves the point less than the tolerance, proposed at a damping the last step
                // was accepted at, ends the fit without a pass to try it: the fit converges about tenfold
                // per step on most corners, so the point is then within a tenth of the tolerance of where
                // more steps would take it.
                if moved < tolerance, lambda < 1e-2 { return result(trial, cost, jtj) }
                guard let trialCost = pass(trial, jtj: &trialJtJ, jtr: &trialJtr), trialCost < cost else {
                    lambda *= raise
                    raise *= 2
                    continue
                }
                // How well the step's linear model foretold the gain: 2 stepᵀJᵀr - stepᵀJᵀJ step.
                var predicted = 0.0
                for a in 0..<n {
                    var row = 0.0
                    for b in 0..<n { row += jtj[n * a + b] * step[b] }
                    predicted += step[a] * (2 * jtr[a] - row)
                }
                let gain = cost - trialCost
                let ratio = predicted > 0 ? min(gain / predicted, 1) : 1
                lambda = max(lambda * max(1.0 / 3, 1 - (2 * ratio - 1) * (2 * ratio - 1) * (2 * ratio - 1)), 1e-9)
                raise = 2
                swap(&q, &trial)
                cost = trialCost
                swap(&jtj, &trialJtJ)
                swap(&jtr, &trialJtr)
                improved = true
                // Done when the point stands still, or when the cost no longer falls (parameters the
                // pixels hardly fix, a curvature or a skew, can drift on for many steps).
                if moved < tolerance || (gain <= 1e-9 * cost && moved < 100 * tolerance) { return result(q, cost, jtj) }
                break
            }
            if !improved { break }
        }
        return result(q, cost, jtj)
    }

    /// The cost at `q` and the normal equations there (JᵀJ n x n row-major, Jᵀr), in one pass over the
    /// pixels; nil when not finite.
    private func pass(_ q: [Double], jtj: inout [Double], jtr: inout [Double]) -> Double? {
        var cost = 0.0
        let status = xs.withUnsafeBufferPointer { x in
            ys.withUnsafeBufferPointer { y in
                values.withUnsafeBufferPointer { v in
                    mkk_xcorner_pass(x.baseAddress, y.baseAddress, v.baseAddress, Int32(x.count), q, modelsSkew ? 1 : 0, 1, &jtj, &jtr, &cost)
                }
            }
        }
        return status == 0 && cost.isFinite ? cost : nil
    }

    private func result(_ q: [Double], _ cost: Double, _ jtj: [Double]) -> Result? {
        guard q.allSatisfy(\.isFinite) else { return nil }
        return Result(point: Point2(x: q[0], y: q[1]), angles: (q[2], q[3]), mean: q[4], contrast: q[5], blur: q[6],
                      rms: (cost / Double(xs.count)).squareRoot(), curvatures: (q[7], q[8]), skews: (q[9], q[10]),
                      normal: jtj, pixels: xs.count)
    }

    /// The point's standard deviation (px, the RMS of its two axes) of a fit to the pixels held now: the
    /// residuals' variance times the point's block of (JᵀJ)⁻¹. Fewer pixels, less contrast or a wider
    /// blur give a larger one; nil when the fit leaves it undetermined. Asked only of the corners kept,
    /// so the search does not pay for it on every trial.
    func sigma(of r: Result) -> Double? {
        let q = [r.point.x, r.point.y, r.angles.0, r.angles.1, r.mean, r.contrast, r.blur, r.curvatures.0, r.curvatures.1, r.skews.0, r.skews.1]
        let cost = r.rms * r.rms * Double(xs.count)
        let n = parameterCount
        var jtj = [Double](repeating: 0, count: n * n), jtr = [Double](repeating: 0, count: n)
        // The fit's own last JᵀJ where it was summed over these pixels (at the point, or a step of less than
        // the tolerance from it), else a pass for it.
        if r.pixels == xs.count, r.normal.count == n * n {
            jtj = r.normal
        } else {
            guard pass(q, jtj: &jtj, jtr: &jtr) != nil else { return nil }
        }
        var unit = [Double](repeating: 0, count: n)
        unit[0] = 1
        guard let first = LinearSystem.solve(jtj, unit, size: n) else { return nil }
        unit[0] = 0
        unit[1] = 1
        guard let second = LinearSystem.solve(jtj, unit, size: n) else { return nil }
        let variance = cost / Double(max(1, xs.count - n)) * (first[0] + second[1]) / 2
        return variance > 0 && variance.isFinite ? variance.squareRoot() : nil
    }
}


import Foundation
import MarkerKitKernels
import Testing
@testable import MarkerKit

/// The corner model fit's pass in the kernel (`mkk_xcorner_pass`: vector lanes, erf from the exp the
/// derivative needs) against the Swift fit it replaced (libm's erf and exp, a pass for the normal
/// equations and another for each trial's cost), kept here as the reference: the same cost and normal
/// equations, and fits that end at the same corner.
@Suite struct XCornerFitKernelTests {
    /// The Swift original, as it was before the kernel.
    struct Reference {
        var modelsSkew = false
        var parameterCount: Int { modelsSkew ? 11 : 9 }
        let minimumBlur = 0.3
        var xs: [Double] = [], ys: [Double] = [], values: [Double] = []

    func fit(from start: Point2, edges: (Point2, Point2), blur: Double, iterations: Int = 30) -> XCornerFit.Result? {
        guard xs.count >= 36 else { return nil }
        // Parameters: x0, y0, normal angle 1, normal angle 2, mean, contrast, sigma, curvature 1, curvature 2.
        // With modelsSkew, the blur's third cumulants along x and y.
        var q = [start.x, start.y, atan2(edges.0.x, -edges.0.y), atan2(edges.1.x, -edges.1.y), 0, 0, max(blur, 0.4), 0, 0, 0, 0]
        // Mean and contrast for the start geometry: a linear least-squares fit.
        var s1 = 0.0, sg = 0.0, sgg = 0.0, sv = 0.0, sgv = 0.0
        for k in xs.indices {
            let g = basis(k, q)
            s1 += 1; sg += g; sgg += g * g; sv += values[k]; sgv += g * values[k]
        }
        let det = s1 * sgg - sg * sg
        guard abs(det) > 1e-9 else { return nil }
        q[4] = (sgg * sv - sg * sgv) / det
        q[5] = (s1 * sgv - sg * sv) / det
        var cost = self.cost(q)
        var lambda = 1e-3
        let n = parameterCount
        for _ in 0..<iterations {
            let (jtj, jtr) = normalEquations(q)
            var improved = false
            for _ in 0..<8 {
                var damped = jtj
                for a in 0..<n { damped[(n + 1) * a] += lambda * max(jtj[(n + 1) * a], 1e-9) }
                guard let step = LinearSystem.solve(damped, jtr, size: n) else { lambda *= 10; continue }
                var trial = q
                for a in 0..<n { trial[a] += step[a] }
                trial[6] = max(minimumBlur, min(trial[6], 20))
                let trialCost = self.cost(trial)
                if trialCost < cost {
                    let moved = abs(step[0]) + abs(step[1])
                    q = trial
                    cost = trialCost
                    lambda = max(lambda / 10, 1e-9)
                    improved = true
                    if moved < 1e-5 { return result(q, cost) }
                    break
                }
                lambda *= 10
            }
            if !improved { break }
        }
        return result(q, cost)
    }

    /// JᵀJ (n x n, row-major) and Jᵀr of the model at `q`.
    func normalEquations(_ q: [Double]) -> (jtj: [Double], jtr: [Double]) {
        let n = parameterCount
        var jtj = [Double](repeating: 0, count: n * n), jtr = [Double](repeating: 0, count: n), row = [Double](repeating: 0, count: n)
        let (c1, s1a, c2, s2a) = (cos(q[2]), sin(q[2]), cos(q[3]), sin(q[3]))
        let sigma = q[6], k = 1 / (sigma * 2.squareRoot()), slope = (2 / Double.pi).squareRoot() / sigma
        // Each edge's skewness (third cumulant along its normal over sigma³) and its derivatives.
        let cube = sigma * sigma * sigma
        let gamma1 = (c1 * c1 * c1 * q[9] + s1a * s1a * s1a * q[10]) / cube, gamma2 = (c2 * c2 * c2 * q[9] + s2a * s2a * s2a * q[10]) / cube
        let gamma1Angle = 3 * c1 * s1a * (s1a * q[10] - c1 * q[9]) / cube, gamma2Angle = 3 * c2 * s2a * (s2a * q[10] - c2 * q[9]) / cube
        for i in xs.indices {
            let dx = xs[i] - q[0], dy = ys[i] - q[1]
            // Along each edge (t) and across it (d), the edge bent by its curvature: d + kappa t^2.
            let t1 = -s1a * dx + c1 * dy, t2 = -s2a * dx + c2 * dy
            let d1 = c1 * dx + s1a * dy + q[7] * t1 * t1, d2 = c2 * dx + s2a * dy + q[8] * t2 * t2
            var g1 = erf(d1 * k), g2 = erf(d2 * k)
            var h1 = slope * exp(-d1 * d1 * k * k), h2 = slope * exp(-d2 * d2 * k * k)
            // d E / d sigma at fixed d, and d E / d gamma (skew only).
            var b1 = -h1 * d1 / sigma, b2 = -h2 * d2 / sigma, e1 = 0.0, e2 = 0.0
            if modelsSkew {
                // E = erf(z / sqrt 2) - gamma / 3 (z^2 - 1) phi(z), z = d / sigma, phi(z) = h sigma / 2.
                let z1 = d1 / sigma, z2 = d2 / sigma, p1 = h1 * sigma / 2, p2 = h2 * sigma / 2
                e1 = -(z1 * z1 - 1) * p1 / 3
                e2 = -(z2 * z2 - 1) * p2 / 3
                g1 += gamma1 * e1
                g2 += gamma2 * e2
                b1 += gamma1 / sigma * ((3 * z1 * z1 - z1 * z1 * z1 * z1) * p1 / 3 + (z1 * z1 - 1) * p1)
                b2 += gamma2 / sigma * ((3 * z2 * z2 - z2 * z2 * z2 * z2) * p2 / 3 + (z2 * z2 - 1) * p2)
                h1 -= gamma1 / (3 * sigma) * (3 * z1 - z1 * z1 * z1) * p1
                h2 -= gamma2 / (3 * sigma) * (3 * z2 - z2 * z2 * z2) * p2
            }
            let c = q[5], a1 = h1 * g2, a2 = g1 * h2
            let n1 = c1 * dx + s1a * dy, n2 = c2 * dx + s2a * dy
            row[0] = c * (a1 * (-c1 + 2 * q[7] * t1 * s1a) + a2 * (-c2 + 2 * q[8] * t2 * s2a))
            row[1] = c * (a1 * (-s1a - 2 * q[7] * t1 * c1) + a2 * (-s2a - 2 * q[8] * t2 * c2))
            row[2] = c * a1 * (t1 - 2 * q[7] * t1 * n1) + c * e1 * g2 * gamma1Angle
            row[3] = c * a2 * (t2 - 2 * q[8] * t2 * n2) + c * g1 * e2 * gamma2Angle
            row[4] = 1
            row[5] = g1 * g2
            row[6] = c * (b1 * g2 + g1 * b2)
            row[7] = c * a1 * t1 * t1
            row[8] = c * a2 * t2 * t2
            if modelsSkew {
                row[9] = c * (e1 * g2 * c1 * c1 * c1 + g1 * e2 * c2 * c2 * c2) / cube
                row[10] = c * (e1 * g2 * s1a * s1a * s1a + g1 * e2 * s2a * s2a * s2a) / cube
            }
            let r = values[i] - (q[4] + c * g1 * g2)
            for a in 0..<n {
                jtr[a] += row[a] * r
                for b in a..<n { jtj[n * a + b] += row[a] * row[b] }
            }
        }
        for a in 0..<n { for b in 0..<a { jtj[n * a + b] = jtj[n * b + a] } }
        return (jtj, jtr)
    }

    func result(_ q: [Double], _ cost: Double) -> XCornerFit.Result? {
        guard q.allSatisfy(\.isFinite) else { return nil }
        return XCornerFit.Result(point: Point2(x: q[0], y: q[1]), angles: (q[2], q[3]), mean: q[4], contrast: q[5], blur: q[6],
                      rms: (cost / Double(xs.count)).squareRoot(), curvatures: (q[7], q[8]), skews: (q[9], q[10]))
    }

    /// The point's standard deviation (px, the RMS of its two axes) of a fit to the pixels held now: the
    /// residuals' variance times the point's block of (JᵀJ)⁻¹. Fewer pixels, less contrast or a wider
    /// blur give a larger one; nil when the fit leaves it undetermined. Asked only of the corners kept,
    /// so the search does not pay for it on every trial.
    func sigma(of r: XCornerFit.Result) -> Double? {
        let q = [r.point.x, r.point.y, r.angles.0, r.angles.1, r.mean, r.contrast, r.blur, r.curvatures.0, r.curvatures.1, r.skews.0, r.skews.1]
        let cost = r.rms * r.rms * Double(xs.count)
        let n = parameterCount, jtj = normalEquations(q).jtj
        var unit = [Double](repeating: 0, count: n)
        unit[0] = 1
        guard let first = LinearSystem.solve(jtj, unit, size: n) else { return nil }
        unit[0] = 0
        unit[1] = 1
        guard let second = LinearSystem.solve(jtj, unit, size: n) else { return nil }
        let variance = cost / Double(max(1, xs.count - n)) * (first[0] + second[1]) / 2
        return variance > 0 && variance.isFinite ? variance.squareRoot() : nil
    }

    @inline(__always)
    func basis(_ i: Int, _ q: [Double]) -> Double {
        let dx = xs[i] - q[0], dy = ys[i] - q[1], k = 1 / (q[6] * 2.squareRoot())
        let (c1, s1, c2, s2) = (cos(q[2]), sin(q[2]), cos(q[3]), sin(q[3]))
        let t1 = -s1 * dx + c1 * dy, t2 = -s2 * dx + c2 * dy
        let d1 = c1 * dx + s1 * dy + q[7] * t1 * t1, d2 = c2 * dx + s2 * dy + q[8] * t2 * t2
        guard modelsSkew else { return erf(d1 * k) * erf(d2 * k) }
        let cube = q[6] * q[6] * q[6]
        return skewedEdge(d1 / q[6], gamma: (c1 * c1 * c1 * q[9] + s1 * s1 * s1 * q[10]) / cube)
            * skewedEdge(d2 / q[6], gamma: (c2 * c2 * c2 * q[9] + s2 * s2 * s2 * q[10]) / cube)
    }

    /// An edge's profile at z sigmas from it under a blur of skewness gamma: erf(z / sqrt 2) less the
    /// Edgeworth term gamma / 3 (z² - 1) phi(z).
    @inline(__always)
    func skewedEdge(_ z: Double, gamma: Double) -> Double {
        erf(z / 2.squareRoot()) - gamma / 3 * (z * z - 1) * exp(-z * z / 2) / (2 * Double.pi).squareRoot()
    }

    func cost(_ q: [Double]) -> Double {
        var sum = 0.0
        for i in xs.indices {
            let r = values[i] - (q[4] + q[5] * basis(i, q))
            sum += r * r
        }
        return sum
    }
    }

    /// Pixels about a corner at (20.3, 19.6): the model with curvature and skew, plus noise.
    static func pixels(seed: UInt64, skewed: Bool, half: Int = 12) -> (xs: [Double], ys: [Double], values: [Double]) {
        var rng = SeededRandom(seed: seed)
        var xs: [Double] = [], ys: [Double] = [], values: [Double] = []
        var truth = Reference(modelsSkew: true)
        let q = [20.3, 19.6, 0.4, 0.4 + Double.pi / 2 + 0.2, 120, 80, 1.1, 0.004, -0.003, skewed ? 0.05 : 0, skewed ? -0.03 : 0]
        for y in (20 - half)...(20 + half) {
            for x in (20 - half)...(20 + half) {
                truth.xs = [Double(x)]
                truth.ys = [Double(y)]
                truth.values = [0]
                // cost of a single pixel with value 0 is the model squared.
                let model = truth.cost(q).squareRoot()
                xs.append(Double(x))
                ys.append(Double(y))
                values.append(model + Double.random(in: -3...3, using: &rng))
            }
        }
        return (xs, ys, values)
    }

    @Test(arguments: [false, true])
    func passGivesTheSwiftModelsCostAndNormalEquations(skew: Bool) throws {
        let (xs, ys, values) = Self.pixels(seed: 3, skewed: skew)
        var reference = Reference(modelsSkew: skew)
        (reference.xs, reference.ys, reference.values) = (xs, ys, values)
        var rng = SeededRandom(seed: 5)
        for _ in 0..<20 {
            let q = [20 + Double.random(in: -1...1, using: &rng), 20 + Double.random(in: -1...1, using: &rng),
                     Double.random(in: -3...3, using: &rng), Double.random(in: -3...3, using: &rng), Double.random(in: 50...200, using: &rng),
                     Double.random(in: -100...100, using: &rng), Double.random(in: 0.3...4, using: &rng), Double.random(in: -0.01...0.01, using: &rng),
                     Double.random(in: -0.01...0.01, using: &rng), Double.random(in: -0.1...0.1, using: &rng), Double.random(in: -0.1...0.1, using: &rng)]
            let n = reference.parameterCount
            var jtj = [Double](repeating: 0, count: n * n), jtr = [Double](repeating: 0, count: n), cost = 0.0
            // An odd count: the last vector of four is part padding.
            let count = xs.count - 1
            let status = mkk_xcorner_pass(xs, ys, values, Int32(count), q, skew ? 1 : 0, 1, &jtj, &jtr, &cost)
            #expect(status == 0)
            var part = reference
            (part.xs, part.ys, part.values) = (Array(xs.prefix(count)), Array(ys.prefix(count)), Array(values.prefix(count)))
            let expected = part.normalEquations(q), expectedCost = part.cost(q)
            #expect(abs(cost - expectedCost) <= 1e-5 * expectedCost)
            // Each entry against the scale of its row and column (the erf approximation errs by 1.5e-7).
            for a in 0..<n {
                let scale = (expected.jtj[(n + 1) * a] * expectedCost).squareRoot() + 1e-9
                #expect(abs(jtr[a] - expected.jtr[a]) <= 1e-5 * scale, "Jtr[\(a)]: \(jtr[a]) against \(expected.jtr[a])")
                for b in 0..<n {
                    let s = (expected.jtj[(n + 1) * a] * expected.jtj[(n + 1) * b]).squareRoot() + 1e-9
                    #expect(abs(jtj[n * a + b] - expected.jtj[n * a + b]) <= 1e-5 * s, "JtJ[\(a), \(b)]")
                }
            }
        }
    }

    @Test(arguments: [false, true])
    func fitsEndAtTheSwiftFitsCorner(skew: Bool) throws {
        for seed in UInt64(1)...12 {
            let (xs, ys, values) = Self.pixels(seed: seed, skewed: skew)
            var reference = Reference(modelsSkew: skew)
            (reference.xs, reference.ys, reference.values) = (xs, ys, values)
            var fit = XCornerFit()
            fit.modelsSkew = skew
            (fit.xs, fit.ys, fit.values) = (xs, ys, values)
            let start = Point2(x: 19.2 + Double(seed % 3) * 0.5, y: 20.4 - Double(seed % 4) * 0.3)
            let edges = (Point2(x: cos(0.4 + .pi / 2), y: sin(0.4 + .pi / 2)), Point2(x: cos(0.4 + .pi + 0.2), y: sin(0.4 + .pi + 0.2)))
            let expected = try #require(reference.fit(from: start, edges: edges, blur: 0.7))
            let found = try #require(fit.fit(from: start, edges: edges, blur: 0.7))
            #expect(found.point.distance(to: expected.point) < 1e-4, "seed \(seed): \(found.point) against \(expected.point)")
            #expect(abs(found.blur - expected.blur) < 1e-3)
            let sigma = try #require(fit.sigma(of: found)), expectedSigma = try #require(reference.sigma(of: expected))
            // The fit's sigma comes from its last JᵀJ, summed at most a step of less than the fit's tolerance
            // (5e-4 px) before its end; the reference sums it again at the end.
            #expect(abs(sigma - expectedSigma) <= 1e-2 * expectedSigma)
        }
    }

    /// A window row's range (`XCornerFit.rowRange`) holds every pixel whose board coordinates lie within
    /// the reach, for affine rows and for projective ones with either sign of w.
    @Test func rowRangeHoldsEveryPixelWithinReach() {
        var rng = SeededRandom(seed: 13)
        for _ in 0..<500 {
            var (a, b, c, d) = (Double.random(in: -30...30, using: &rng), Double.random(in: -2...2, using: &rng),
                                Double.random(in: -30...30, using: &rng), Double.random(in: -2...2, using: &rng))
            var (e, f) = Bool.random(using: &rng) ? (1.0, 0.0) : (Double.random(in: 0.5...2, using: &rng), Double.random(in: -0.01...0.01, using: &rng))
            if Bool.random(using: &rng) { (a, b, c, d, e, f) = (-a, -b, -c, -d, -e, -f) }
            let reach = Double.random(in: 2...16, using: &rng)
            if e < 0 { (a, b, c, d, e, f) = (-a, -b, -c, -d, -e, -f) } // w positive at the window's centre (x = 0), as the windows make it
            let inside = (-40...40).filter { x in
                let w = e + f * Double(x)
                return abs((a + b * Double(x)) / w) < reach && abs((c + d * Double(x)) / w) < reach
            }
            let range = XCornerFit.rowRange(a, b, c, d, e, f, reach: reach, within: -40, 40)
            if inside.isEmpty { continue }
            #expect(range.map { inside.allSatisfy($0.contains) } == true, "a \(a) b \(b) c \(c) d \(d) e \(e) f \(f) reach \(reach)")
            // And not much more: a pixel either side for rounding at most.
            if let range { #expect(range.count <= inside.count + 2 + (inside.last! - inside.first! + 1 - inside.count)) }
        }
    }

    /// The damped step (`mkk_xcorner_step`, Cholesky without allocating) against LinearSystem's Gaussian
    /// elimination it replaced, with and without a parameter held.
    @Test func stepSolvesTheDampedNormalEquations() throws {
        var rng = SeededRandom(seed: 11)
        for n in [9, 11] {
            for _ in 0..<20 {
                // JᵀJ of a random J (n x 3n): symmetric positive definite.
                let rows = 3 * n
                let j = (0..<(rows * n)).map { _ in Double.random(in: -2...2, using: &rng) }
                var jtj = [Double](repeating: 0, count: n * n)
                for a in 0..<n { for b in 0..<n { jtj[a * n + b] = (0..<rows).reduce(0) { $0 + j[$1 * n + a] * j[$1 * n + b] } } }
                let jtr = (0..<n).map { _ in Double.random(in: -5...5, using: &rng) }
                let lambda = [0, 1e-3, 0.5][Int.random(in: 0...2, using: &rng)]
                for hold in [0, 7] {
                    var damped = jtj, rhs = jtr
                    for a in 0..<n { damped[(n + 1) * a] += lambda * max(jtj[(n + 1) * a], 1e-9) }
                    if hold > 0 {
                        for a in 0..<n { damped[n * a + hold - 1] = 0; damped[n * (hold - 1) + a] = 0 }
                        damped[(n + 1) * (hold - 1)] = 1
                        rhs[hold - 1] = 0
                    }
                    let expected = try #require(LinearSystem.solve(damped, rhs, size: n))
                    var step = [Double](repeating: .nan, count: n)
                    #expect(mkk_xcorner_step(jtj, jtr, Int32(n), lambda, Int32(hold), &step) == 0)
                    for a in 0..<n { #expect(abs(step[a] - expected[a]) <= 1e-8 * (1 + abs(expected[a])), "n \(n) hold \(hold) [\(a)]") }
                    if hold > 0 { #expect(step[hold - 1] == 0) }
                }
            }
        }
        // Not positive definite, or no room: refused.
        var step = [Double](repeating: 0, count: 2)
        #expect(mkk_xcorner_step([1, 2, 2, 1], [1, 1], 2, 0, 0, &step) != 0)
        #expect(mkk_xcorner_step([1, 0, 0, 1], [1, 1], 12, 0, 0, &step) != 0)
    }
}

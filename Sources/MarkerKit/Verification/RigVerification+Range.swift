import Foundation

extension RigVerification.Summary {
    /// The central 95% of the error / sigma RMS figures that sigmas which are right would give over these
    /// seeds: errors are drawn from each seed's own extrinsic correlation (so the rotation components of one
    /// pose, and the poses of cameras that share camera 0, move together as the solve says they do), divided
    /// by their sigma, and the RMS taken as the table takes it. A figure outside this range is a sigma that
    /// is wrong; one inside it is as close to 1 as that many ratios can say.
    public func expectedRange(draws: Int = 4000, seed: UInt64 = 1) -> (rotation: ClosedRange<Double>, translation: ClosedRange<Double>)? {
        guard !correlations.isEmpty else { return nil }
        let factors = correlations.compactMap(Self.cholesky)
        guard factors.count == correlations.count else { return nil }
        var random = SeededRandom(seed: seed)
        var rotation: [Double] = [], translation: [Double] = []
        rotation.reserveCapacity(draws)
        translation.reserveCapacity(draws)
        for _ in 0..<max(draws, 1) {
            var sums = (rotation: 0.0, translation: 0.0), counts = (rotation: 0, translation: 0)
            for lower in factors {
                let m = Int(Double(lower.count).squareRoot())
                let g = (0..<m).map { _ in random.gaussian() }
                for i in 0..<m {
                    var z = 0.0
                    for j in 0...i { z += lower[i * m + j] * g[j] }
                    if i % 6 < 3 { sums.rotation += z * z; counts.rotation += 1 } else { sums.translation += z * z; counts.translation += 1 }
                }
            }
            rotation.append((sums.rotation / Double(max(counts.rotation, 1))).squareRoot())
            translation.append((sums.translation / Double(max(counts.translation, 1))).squareRoot())
        }
        func central(_ values: [Double]) -> ClosedRange<Double> {
            let sorted = values.sorted(), n = sorted.count
            return sorted[Int(Double(n - 1) * 0.025)]...sorted[Int(Double(n - 1) * 0.975)]
        }
        return (central(rotation), central(translation))
    }

    /// The correlation matrix of a covariance (m x m, row-major); nil when a variance is not positive.
    static func correlation(_ covariance: [Double]) -> [Double]? {
        let m = Int(Double(covariance.count).squareRoot())
        let sigma = (0..<m).map { covariance[$0 * m + $0].squareRoot() }
        guard sigma.allSatisfy({ $0.isFinite && $0 > 0 }) else { return nil }
        return (0..<m * m).map { covariance[$0] / (sigma[$0 / m] * sigma[$0 % m]) }
    }

    /// The lower Cholesky factor of a symmetric positive definite matrix; nil when it is not.
    static func cholesky(_ a: [Double]) -> [Double]? {
        let m = Int(Double(a.count).squareRoot())
        var l = [Double](repeating: 0, count: m * m)
        for i in 0..<m {
            for j in 0...i {
                var s = a[i * m + j]
                for k in 0..<j { s -= l[i * m + k] * l[j * m + k] }
                if i == j {
                    guard s > 0 else { return nil }
                    l[i * m + i] = s.squareRoot()
                } else {
                    l[i * m + j] = s / l[j * m + j]
                }
            }
        }
        return l
    }
}

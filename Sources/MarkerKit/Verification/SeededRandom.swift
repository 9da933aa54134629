/// A reproducible random number generator (SplitMix64): the same seed gives the same scenes on every
/// machine.
public struct SeededRandom: RandomNumberGenerator, Sendable {
    private var state: UInt64

    public init(seed: UInt64) { state = seed &+ 0x9E37_79B9_7F4A_7C15 }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Uniform in [0, 1).
    public mutating func unit() -> Double { Double(next() >> 11) * 0x1.0p-53 }

    public mutating func uniform(_ range: ClosedRange<Double>) -> Double {
        range.lowerBound + (range.upperBound - range.lowerBound) * unit()
    }

    /// Log-uniform in `range` (both bounds above 0).
    public mutating func logUniform(_ range: ClosedRange<Double>) -> Double {
        exp(uniform(log(range.lowerBound)...log(range.upperBound)))
    }

    /// True with probability `p`.
    public mutating func chance(_ p: Double) -> Bool { unit() < p }

    /// An index in 0..<count (count > 0).
    public mutating func pick(_ count: Int) -> Int { min(count - 1, Int(unit() * Double(count))) }

    /// Standard normal (Box-Muller).
    public mutating func gaussian() -> Double {
        let u1 = max(unit(), 1e-300), u2 = unit()
        return (-2 * log(u1)).squareRoot() * cos(2 * Double.pi * u2)
    }
}

import Foundation

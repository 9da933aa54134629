import Foundation

/// Chooses between an ambiguous marker's two poses (`MarkerPoses`) with the frames before. When a marker
/// faces the camera or is small, its two poses reproject almost alike and the one that reprojects a
/// little better follows the corners' noise, flipping from frame to frame. Here each marker's two poses
/// are followed as two tracks (each frame's poses continue the last frame's nearest), and the evidence of
/// the reprojection errors is summed along them (a two-state filter: the log odds that track A is the
/// true pose, each frame's errors adding (SSE_B - SSE_A) / 2 sigma^2, with a small chance per frame of
/// the tracks changing places): an ambiguous marker gets the pose of the track the frames so far favour.
/// A marker whose poses are not ambiguous keeps the one that reprojects better. sigma^2, the corner
/// noise, is estimated from the chosen poses' errors as the stream goes. Frames must come in order, one
/// history per stream (a new video starts a new one). Kept in an array by ID made once: nothing is
/// allocated per frame.
public struct PoseHistory: Sendable {
    /// Two poses whose errors are within this factor of each other are ambiguous. Of 20,000 simulated
    /// markers (15-300 px, 0-70 degrees of tilt, corner noise 0.05-0.4 px), IPPE's better-reprojecting
    /// pose was the wrong one for 355; 331 of those had a ratio below 4, and 9.4% of all markers did
    /// (docs/MEASUREMENTS.md, "Pose ambiguity").
    public static let ambiguousRatio = 4.0
    /// The chance per frame that the true pose moves from one track to the other (where the tracks
    /// cross, as a marker turns through facing the camera).
    public static let switchChance = 0.02
    /// How many frames a marker's tracks are remembered after it was last seen.
    public var memory: Int

    private struct Entry: Sendable {
        var a = MarkerPose(rotation: .zero, translation: .zero), b = MarkerPose(rotation: .zero, translation: .zero)
        /// log P(track A is the true pose) - log P(track B is).
        var odds = 0.0
        var frame = Int.min
    }
    private var entries: [Entry]
    /// The corner noise's variance per coordinate (px^2), from the chosen poses' squared errors.
    private var noise: Double?

    /// A history for IDs 0 ..< `ids` (the dictionary's size); `memory` frames.
    public init(ids: Int, memory: Int = 15) {
        entries = Array(repeating: Entry(), count: max(0, ids))
        self.memory = memory
    }

    /// The marker's poses as they should be reported in frame `frame` (its index in the stream), and
    /// what decided them.
    public mutating func decide(_ poses: MarkerPoses, id: Int, frame: Int) -> (MarkerPoses, DetectionReport.Pose.Decision) {
        guard entries.indices.contains(id) else { return (poses, .reprojection) }
        let last = entries[id]
        let recent = last.frame != .min && frame > last.frame && frame - last.frame <= memory
        // Track A continues the last frame's A: the pairing of the two poses that moves them least.
        let crossed = recent && poses.chosen.degrees(from: last.a) + poses.other.degrees(from: last.b)
            > poses.chosen.degrees(from: last.b) + poses.other.degrees(from: last.a)
        let (a, b) = crossed ? (poses.other, poses.chosen) : (poses.chosen, poses.other)
        // Squared errors summed over the four corners.
        let (sseA, sseB) = crossed ? (4 * poses.otherError * poses.otherError, 4 * poses.chosenError * poses.chosenError)
                                   : (4 * poses.chosenError * poses.chosenError, 4 * poses.otherError * poses.otherError)
        let variance = noise ?? max(4 * poses.chosenError * poses.chosenError / 2, 1e-4)
        var odds = recent ? Self.carried(last.odds, frames: frame - last.frame) : 0
        odds = min(50, max(-50, odds + (sseB - sseA) / (2 * variance)))
        var decided = (poses, DetectionReport.Pose.Decision.reprojection)
        if poses.isAmbiguous, recent {
            let chooseA = odds >= 0
            decided = (chooseA == !crossed ? poses : poses.swapped, .history)
        }
        // The chosen pose's squared error has 8 - 6 = 2 degrees of freedom: SSE / 2 estimates the variance.
        let sample = max(4 * decided.0.chosenError * decided.0.chosenError / 2, 1e-4)
        noise = noise.map { 0.95 * $0 + 0.05 * sample } ?? sample
        entries[id] = Entry(a: a, b: b, odds: odds, frame: frame)
        return decided
    }

    /// The log odds after `frames` frames in which the tracks may have changed places.
    static func carried(_ odds: Double, frames: Int) -> Double {
        let p = min(0.5, switchChance * Double(frames))
        let pa = 1 / (1 + exp(-odds)) // P(A)
        let next = pa * (1 - p) + (1 - pa) * p
        return log(next / (1 - next))
    }
}

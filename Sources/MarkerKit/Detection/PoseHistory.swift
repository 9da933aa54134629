import Foundation

/// Chooses between an ambiguous marker's two poses (`MarkerPoses`) with the frames before. When a marker
/// faces the camera or is small, its two poses reproject almost alike and the one that reprojects a
/// little better follows the corners' noise, flipping from frame to frame. Here each marker's two poses
/// are followed as two tracks (each frame's poses continue the last frame's nearest), and the evidence of
/// the reprojection errors is summed along them (a two-state filter: the log odds that track A is the
/// true pose, each view's errors adding (SSE_B - SSE_A) / 2 sigma^2): an ambiguous marker gets the pose
/// of the track the frames so far favour. A marker whose poses are not ambiguous keeps the one that
/// reprojects better. Two things keep the filter honest:
/// - The true pose can change tracks only where the tracks meet (the marker turning through facing the
///   camera, its two poses within `crossingDegrees`): there with `switchChance` per frame, elsewhere
///   almost never, so what the frames showed while the marker was clearly tilted carries on.
/// - A marker held still shows the same corners, errors and all, frame after frame: its frames are one
///   view, not many. Frames whose corners stay within `viewPixels` of where the view began count as one,
///   with the mean of their evidence (which averages the noise but not what the still corners share).
/// sigma^2, the corner noise, is estimated from the chosen poses' errors as the stream goes. Frames must
/// come in order, one history per stream (a new video starts a new one). Kept in an array by ID made
/// once: nothing is allocated per frame.
public struct PoseHistory: Sendable {
    /// Two poses whose errors are within this factor of each other are ambiguous. Of 20,000 simulated
    /// markers (15-300 px, 0-70 degrees of tilt, corner noise 0.05-0.4 px), IPPE's better-reprojecting
    /// pose was the wrong one for 355; 331 of those had a ratio below 4, and 9.4% of all markers did
    /// (docs/MEASUREMENTS.md, "Pose ambiguity").
    public static let ambiguousRatio = 4.0
    /// Where the two tracks are within this many degrees of each other they may change places, with
    /// this chance per frame; farther apart, with `farSwitchChance`.
    public static let crossingDegrees = 10.0
    public static let switchChance = 0.1
    public static let farSwitchChance = 0.001
    /// A frame's evidence (log odds) below this is weak whatever its errors' ratio: 100 to 1.
    public static let clearEvidence = log(100.0)
    /// Frames whose corners stay this close (mean distance, px) to the first of them are one view.
    public static let viewPixels = 0.5
    /// How many frames a marker's tracks are remembered after it was last seen.
    public var memory: Int

    private struct Entry: Sendable {
        var a = MarkerPose(rotation: .zero, translation: .zero), b = MarkerPose(rotation: .zero, translation: .zero)
        /// log P(track A is the true pose) - log P(track B is), before the current view.
        var odds = 0.0
        /// The current view: the corners it began with, its frames' evidence summed, and how many.
        var corners: Quad?
        var evidence = 0.0, frames = 0
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
    /// what decided them. `corners`, the marker's corners, tell a marker held still from a moving one
    /// (nil: every frame a view of its own, as for a marker map's pose).
    public mutating func decide(_ poses: MarkerPoses, id: Int, frame: Int, corners: Quad? = nil) -> (MarkerPoses, DetectionReport.Pose.Decision) {
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
        let evidence = (sseB - sseA) / (2 * variance)
        var entry = Entry(a: a, b: b, frame: frame)
        if recent {
            if let corners, let start = last.corners, Self.distance(corners, start) < Self.viewPixels {
                // The same view: the mean of its frames' evidence. A marker that has not moved has not
                // turned through facing the camera either: the tracks keep their places.
                entry.odds = last.odds
                (entry.corners, entry.evidence, entry.frames) = (start, last.evidence + evidence, last.frames + 1)
            } else {
                let apart = a.degrees(from: b) < Self.crossingDegrees ? Self.switchChance : Self.farSwitchChance
                entry.odds = Self.carried(last.odds, frames: frame - last.frame, chance: apart)
                // A new view: the last one's mean evidence is kept.
                if last.frames > 0 { entry.odds += last.evidence / Double(last.frames) }
            }
        }
        if entry.frames == 0 { (entry.corners, entry.evidence, entry.frames) = (corners, evidence, 1) }
        entry.odds = min(50, max(-50, entry.odds))
        let odds = min(50, max(-50, entry.odds + entry.evidence / Double(entry.frames)))
        var decided = (poses, DetectionReport.Pose.Decision.reprojection)
        // A frame decides alone only where its poses are not ambiguous and its own evidence is strong: a
        // small marker's two errors can differ fourfold and both be far below its corners' noise.
        if recent, poses.isAmbiguous || abs(evidence) < Self.clearEvidence {
            let chooseA = odds >= 0
            decided = (chooseA == !crossed ? poses : poses.swapped, .history)
        }
        // The chosen pose's squared error has 8 - 6 = 2 degrees of freedom: SSE / 2 estimates the variance.
        let sample = max(4 * decided.0.chosenError * decided.0.chosenError / 2, 1e-4)
        noise = noise.map { 0.95 * $0 + 0.05 * sample } ?? sample
        entries[id] = entry
        return decided
    }

    /// The mean distance (px) between two markers' corners.
    static func distance(_ p: Quad, _ q: Quad) -> Double {
        (p[0].distance(to: q[0]) + p[1].distance(to: q[1]) + p[2].distance(to: q[2]) + p[3].distance(to: q[3])) / 4
    }

    /// The log odds after `frames` frames in which the tracks may have changed places with `chance` per frame.
    static func carried(_ odds: Double, frames: Int, chance: Double) -> Double {
        let p = min(0.5, chance * Double(frames))
        let pa = 1 / (1 + exp(-odds)) // P(A)
        let next = pa * (1 - p) + (1 - pa) * p
        return log(next / (1 - next))
    }
}

import Foundation

/// Steadier poses for overlays (`--smooth`): a One Euro filter (Casiez, Roussel and Vogel, CHI 2012, the
/// filter AR and VR toolkits put on tracked poses) per marker and for the target. Each frame's pose moves
/// the smoothed one towards it by a fraction that grows with the pose's speed: held still, the frame-to-frame
/// jitter is averaged over many frames; moving, the fraction nears 1 and the lag stays small. Rotation is
/// blended as unit quaternions, translation per component, both by the same fraction. A jump of more than
/// `snapDegrees` (the history changing a marker's pose to its other IPPE solution) or a marker unseen for
/// more than `forgetFrames` frames starts afresh from the frame's pose, so no pose half-way between two
/// solutions is ever reported. Frames are the time unit: cut-offs are in cycles per frame, speeds in
/// degrees (or percent of the distance) per frame. State is kept per ID in memory allocated once.
public struct PoseSmoother: Sendable {
    /// The cut-off at rest (cycles per frame): 0.02 blends 11% of each frame's pose into a still one.
    public static let minimumCutoff = 0.01
    /// How much the cut-off rises per degree (or percent of the distance) per frame of speed.
    public static let speedCoefficient = 1.5
    /// The cut-off of the speed's own smoothing (cycles per frame).
    public static let speedCutoff = 0.3
    public static let snapDegrees = 20.0
    public static let forgetFrames = 5

    struct State: Sendable {
        var rotation: SIMD4<Double>
        var translation: SIMD3<Double>
        var speed: Double
        var frame: Int
    }

    private var states: [State?]

    /// For IDs 0 ..< `ids` (the dictionary's size; one for a target).
    public init(ids: Int) {
        states = [State?](repeating: nil, count: max(ids, 1))
    }

    /// The fraction of a new sample a first-order low-pass with cut-off `cutoff` (cycles per frame) takes
    /// over `frames` frames.
    static func fraction(cutoff: Double, frames: Double) -> Double {
        let tau = 1 / (2 * Double.pi * cutoff)
        return 1 / (1 + tau / frames)
    }

    /// The smoothed pose of `id` in frame `frame` given this frame's `pose`.
    public mutating func smooth(_ pose: MarkerPose, id: Int, frame: Int) -> MarkerPose {
        let q = UnitQuaternion.from(pose.rotation)
        guard states.indices.contains(id), var state = states[id], frame > state.frame, frame - state.frame <= Self.forgetFrames else {
            if states.indices.contains(id) { states[id] = State(rotation: q, translation: pose.translation, speed: 0, frame: frame) }
            return pose
        }
        let last = MarkerPose(rotation: UnitQuaternion.rotationVector(state.rotation), translation: state.translation)
        let turn = pose.degrees(from: last)
        guard turn <= Self.snapDegrees else {
            states[id] = State(rotation: q, translation: pose.translation, speed: 0, frame: frame)
            return pose
        }
        let frames = Double(frame - state.frame)
        let distance = max((pose.translation * pose.translation).sum().squareRoot(), 1e-12)
        let shift = pose.translation - state.translation
        let move = 100 * (shift * shift).sum().squareRoot() / distance
        let rawSpeed = max(turn, move) / frames
        state.speed += Self.fraction(cutoff: Self.speedCutoff, frames: frames) * (rawSpeed - state.speed)
        let a = Self.fraction(cutoff: Self.minimumCutoff + Self.speedCoefficient * state.speed, frames: frames)
        // Blend on the near hemisphere (q and -q are one rotation), then back onto the unit sphere.
        let target = (state.rotation * q).sum() < 0 ? -q : q
        let blended = state.rotation + a * (target - state.rotation)
        state.rotation = blended / (blended * blended).sum().squareRoot()
        state.translation += a * shift
        state.frame = frame
        states[id] = state
        return MarkerPose(rotation: UnitQuaternion.rotationVector(state.rotation), translation: state.translation)
    }
}

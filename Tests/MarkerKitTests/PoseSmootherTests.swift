import Foundation
import Testing
@testable import MarkerKit

/// `--smooth`'s filter on made-up pose streams: a still marker's jitter shrinks (0.235 -> 0.143 degrees RMS when measured), a turning marker's pose
/// follows with a small lag, a jump to the other pose and a marker seen again after a gap start afresh.
@Suite struct PoseSmootherTests {
    static let base = MarkerPose(rotation: SIMD3(2.8, 0.4, -0.3), translation: SIMD3(0.05, -0.02, 0.6))

    /// `pose` turned by `degrees` about `axis` (camera frame) after it.
    static func turned(_ pose: MarkerPose, degrees: Double, axis: SIMD3<Double>) -> MarkerPose {
        let unit = axis / (axis * axis).sum().squareRoot(), turn = unit * (degrees * .pi / 180)
        let rvec = Pose3D.compose(pose.rvec, then: [turn.x, turn.y, turn.z])
        return MarkerPose(rotation: SIMD3(rvec[0], rvec[1], rvec[2]), translation: pose.translation)
    }

    @Test func aStillMarkersJitterShrinks() {
        var smoother = PoseSmoother(ids: 8)
        var random = SeededRandom(seed: 9)
        var raw: [Double] = [], smooth: [Double] = []
        var lastRaw: MarkerPose?, lastSmooth: MarkerPose?
        for frame in 0..<300 {
            let axis = SIMD3(random.uniform(-1...1), random.uniform(-1...1), random.uniform(-1...1))
            let pose = Self.turned(Self.base, degrees: random.uniform(0...0.3), axis: axis)
            let out = smoother.smooth(pose, id: 3, frame: frame)
            if frame >= 50, let lastRaw, let lastSmooth {
                raw.append(pose.degrees(from: lastRaw))
                smooth.append(out.degrees(from: lastSmooth))
            }
            (lastRaw, lastSmooth) = (pose, out)
        }
        func rms(_ v: [Double]) -> Double { (v.map { $0 * $0 }.reduce(0, +) / Double(v.count)).squareRoot() }
        print("measured: still marker, turns of 0-0.3 degrees: frame-to-frame RMS \(rms(raw)) raw, \(rms(smooth)) smoothed")
        #expect(rms(smooth) < 0.7 * rms(raw))
    }

    @Test func aTurningMarkerIsFollowedWithASmallLag() {
        var smoother = PoseSmoother(ids: 8)
        var lag = 0.0
        for frame in 0..<120 {
            let pose = Self.turned(Self.base, degrees: Double(frame), axis: SIMD3(1, 0.3, 0))
            let out = smoother.smooth(pose, id: 1, frame: frame)
            if frame >= 60 { lag = max(lag, out.degrees(from: pose)) }
        }
        print("measured: marker turning 1 degree per frame: smoothed pose at most \(lag) degrees behind")
        #expect(lag > 0 && lag < 0.2)
    }

    @Test func aJumpOrAGapStartsAfresh() {
        var smoother = PoseSmoother(ids: 8)
        for frame in 0..<10 { _ = smoother.smooth(Self.base, id: 2, frame: frame) }
        let mirror = Self.turned(Self.base, degrees: 40, axis: SIMD3(0, 1, 0))
        #expect(smoother.smooth(mirror, id: 2, frame: 10) == mirror, "the other IPPE pose is taken whole, never half-way")
        let later = Self.turned(Self.base, degrees: 10, axis: SIMD3(1, 0, 0))
        #expect(smoother.smooth(later, id: 2, frame: 10 + PoseSmoother.forgetFrames + 1) == later, "unseen for 6 frames: afresh")
        // Another ID keeps its own state; an ID out of range is passed through.
        #expect(smoother.smooth(later, id: 5, frame: 17) == later)
        #expect(smoother.smooth(later, id: 99, frame: 17) == later)
    }
}

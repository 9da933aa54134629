import Foundation

/// Rigid transforms as rvec/tvec pairs (x' = R x + t).
enum RigMath {
    static func apply(_ p: Pose3D, _ x: [Double]) -> [Double] {
        let r = p.rotation
        return (0..<3).map { i in r[3 * i] * x[0] + r[3 * i + 1] * x[1] + r[3 * i + 2] * x[2] + p.tvec[i] }
    }

    /// `a` then `b`: x -> b(a(x)).
    static func compose(_ a: Pose3D, then b: Pose3D) -> Pose3D {
        Pose3D(rvec: Pose3D.compose(a.rvec, then: b.rvec), tvec: apply(b, a.tvec))
    }

    /// `b` applied after `a`, written the other way round: compose(x, after: y) = y then x... as frames:
    /// the pose of c in 0 from c in k and k in 0.
    static func compose(_ ck: Pose3D, after k0: Pose3D) -> Pose3D { compose(k0, then: ck) }

    static func inverse(_ p: Pose3D) -> Pose3D {
        let rt = Pose3D(rvec: p.rvec.map { -$0 }, tvec: [0, 0, 0])
        return Pose3D(rvec: rt.rvec, tvec: apply(rt, p.tvec).map { -$0 })
    }

    /// The component-wise median of rotation vectors and translations.
    static func median(_ poses: [Pose3D]) -> Pose3D {
        func med(_ values: [Double]) -> Double {
            let s = values.sorted()
            return s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
        }
        return Pose3D(rvec: (0..<3).map { i in med(poses.map { $0.rvec[i] }) }, tvec: (0..<3).map { i in med(poses.map { $0.tvec[i] }) })
    }
}

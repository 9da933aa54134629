import Foundation

/// Rotations as unit quaternions (x, y, z, w) in SIMD values: composing, turning into and out of rotation
/// vectors, without arrays (the pose history and the smoother do this for every marker of every frame).
public enum UnitQuaternion {
    /// The quaternion of a rotation vector (axis times angle, radians).
    public static func from(_ r: SIMD3<Double>) -> SIMD4<Double> {
        let angle = (r * r).sum().squareRoot()
        guard angle > 1e-15 else { return SIMD4(0, 0, 0, 1) }
        let s = sin(angle / 2) / angle
        return SIMD4(r.x * s, r.y * s, r.z * s, cos(angle / 2))
    }

    /// The rotation vector of a unit quaternion (angle in 0 ... pi: q and -q are one rotation).
    public static func rotationVector(_ q: SIMD4<Double>) -> SIMD3<Double> {
        let v = SIMD3(q.x, q.y, q.z), length = (v * v).sum().squareRoot()
        guard length > 1e-15 else { return SIMD3(0, 0, 0) }
        let angle = 2 * atan2(length, abs(q.w))
        return (q.w < 0 ? -v : v) * (angle / length)
    }

    /// p q: the rotation q, then p.
    public static func multiply(_ p: SIMD4<Double>, _ q: SIMD4<Double>) -> SIMD4<Double> {
        let pv = SIMD3(p.x, p.y, p.z), qv = SIMD3(q.x, q.y, q.z)
        let v = p.w * qv + q.w * pv + cross(pv, qv)
        return SIMD4(v.x, v.y, v.z, p.w * q.w - (pv * qv).sum())
    }

    /// The inverse (conjugate) of a unit quaternion.
    public static func inverse(_ q: SIMD4<Double>) -> SIMD4<Double> { SIMD4(-q.x, -q.y, -q.z, q.w) }
}

import Foundation

/// A rigid pose: a Rodrigues rotation vector and a translation (target frame to camera frame, mm).
public struct Pose3D: Sendable, Equatable, Codable {
    public var rvec: [Double]
    public var tvec: [Double]

    public init(rvec: [Double], tvec: [Double]) {
        self.rvec = rvec
        self.tvec = tvec
    }

    /// The 3x3 rotation matrix, row-major (Rodrigues' formula).
    public var rotation: [Double] {
        let theta = (rvec[0] * rvec[0] + rvec[1] * rvec[1] + rvec[2] * rvec[2]).squareRoot()
        guard theta > 1e-15 else { return [1, 0, 0, 0, 1, 0, 0, 0, 1] }
        let (x, y, z) = (rvec[0] / theta, rvec[1] / theta, rvec[2] / theta)
        let c = cos(theta), s = sin(theta), t = 1 - c
        return [t * x * x + c, t * x * y - s * z, t * x * z + s * y,
                t * x * y + s * z, t * y * y + c, t * y * z - s * x,
                t * x * z - s * y, t * y * z + s * x, t * z * z + c]
    }

    /// This pose followed by a translation in the target's own frame (a marker on a sheet).
    public func offset(by local: (Double, Double, Double)) -> Pose3D {
        let r = rotation
        return Pose3D(rvec: rvec, tvec: [
            tvec[0] + r[0] * local.0 + r[1] * local.1 + r[2] * local.2,
            tvec[1] + r[3] * local.0 + r[4] * local.1 + r[5] * local.2,
            tvec[2] + r[6] * local.0 + r[7] * local.1 + r[8] * local.2,
        ])
    }

    /// Rotation vector from a row-major rotation matrix.
    public static func rvec(from r: [Double]) -> [Double] {
        let cosine = max(-1, min(1, (r[0] + r[4] + r[8] - 1) / 2))
        let theta = acos(cosine)
        if theta < 1e-12 { return [0, 0, 0] }
        if Double.pi - theta < 1e-6 {
            // Near 180 degrees: the axis from the diagonal.
            let x = ((r[0] + 1) / 2).squareRoot(), y = ((r[4] + 1) / 2).squareRoot(), z = ((r[8] + 1) / 2).squareRoot()
            let sy: Double = r[1] + r[3] >= 0 ? 1 : -1, sz: Double = r[2] + r[6] >= 0 ? 1 : -1
            return [x * theta, sy * y * theta, sz * z * theta]
        }
        let k = theta / (2 * sin(theta))
        return [(r[7] - r[5]) * k, (r[2] - r[6]) * k, (r[3] - r[1]) * k]
    }

    /// Composes rotations: `a` then `b` (b * a), as a rotation vector.
    public static func compose(_ a: [Double], then b: [Double]) -> [Double] {
        let ra = Pose3D(rvec: a, tvec: [0, 0, 0]).rotation, rb = Pose3D(rvec: b, tvec: [0, 0, 0]).rotation
        var m = [Double](repeating: 0, count: 9)
        for i in 0..<3 { for j in 0..<3 { for k in 0..<3 { m[3 * i + j] += rb[3 * i + k] * ra[3 * k + j] } } }
        return rvec(from: m)
    }

    /// A board as a user holds it before the camera: turned `spin` in its plane, then tilted by `tilt`
    /// about the axis across the line of sight at angle `axis` (radians), with its point `centre` (board
    /// frame, mm) at `position` in the camera frame.
    public static func held(centre: (Double, Double), at position: (Double, Double, Double), tilt: Double, axis: Double, spin: Double) -> Pose3D {
        let rvec = compose([0, 0, spin], then: [cos(axis) * tilt, sin(axis) * tilt, 0])
        let r = Pose3D(rvec: rvec, tvec: [0, 0, 0]).rotation
        return Pose3D(rvec: rvec, tvec: [position.0 - r[0] * centre.0 - r[1] * centre.1, position.1 - r[3] * centre.0 - r[4] * centre.1,
                                         position.2 - r[6] * centre.0 - r[7] * centre.1])
    }

    /// Angle in degrees between two rotations.
    public static func angleBetween(_ a: [Double], _ b: [Double]) -> Double {
        let ra = Pose3D(rvec: a, tvec: [0, 0, 0]).rotation, rb = Pose3D(rvec: b, tvec: [0, 0, 0]).rotation
        var trace = 0.0
        for i in 0..<3 { for k in 0..<3 { trace += ra[3 * k + i] * rb[3 * k + i] } }
        return acos(max(-1, min(1, (trace - 1) / 2))) * 180 / Double.pi
    }
}

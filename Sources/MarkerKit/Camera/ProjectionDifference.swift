import CVBridge
import Foundation

/// How differently two calibrations of one camera project the world, as mrcal's `projection_diff`
/// measures it: pixels on a grid over the image are taken back through the first calibration to points
/// (at `range` along their rays, or directions at infinity), the transform between the two calibrations'
/// camera frames that best maps those points onto the second calibration's rays through the same pixels
/// is fitted (a rotation at infinity, a rotation and translation at a range), and each point is projected
/// through the second calibration: the distance to the pixel it came from is the difference. Two
/// calibrations of one camera differ in their frames by however the lens was modelled; only what is
/// left after the fitted transform is a difference in projection. The fit weighs each point by
/// 1 / (sigma0 sigma1)^2 when both calibrations carry their covariance (mrcal's default), else uses the
/// points within a sixth of the image's smaller side of its centre, unweighted.
public struct ProjectionDifference: Sendable {
    public struct Point: Codable, Sendable, Equatable {
        public let x: Double
        public let y: Double
        /// px
        public let difference: Double
    }

    public let first: CameraCalibration
    public let second: CameraCalibration

    /// Refuses calibrations of different image sizes: they are not of one camera as used.
    public init(_ first: CameraCalibration, _ second: CameraCalibration) throws {
        guard first.imageWidth > 0, first.imageHeight > 0 else {
            throw MarkerKitError.badInput("calibration '\(first.name)' has no image size, which a comparison needs")
        }
        guard (first.imageWidth, first.imageHeight) == (second.imageWidth, second.imageHeight) else {
            throw MarkerKitError.badInput("'\(first.name)' is for \(first.imageWidth)x\(first.imageHeight) images and '\(second.name)' for \(second.imageWidth)x\(second.imageHeight): only calibrations of the same image size can be compared")
        }
        self.first = first
        self.second = second
    }

    /// The result over a grid `columns` wide (rows follow the image's aspect), `range` in mm or nil.
    public struct Result: Sendable {
        public let points: [Point]
        public let columns: Int
        public let rows: Int
        /// The fitted transform from the first calibration's camera frame to the second's.
        public let rotation: [Double]
        public let translation: [Double]
        /// Whether the fit was weighted by the calibrations' uncertainties.
        public let weighted: Bool
    }

    public func compute(columns: Int = 60, range: Double?) throws -> Result {
        let w = Double(first.imageWidth), h = Double(first.imageHeight)
        let rows = max(2, Int((h / w * Double(columns)).rounded()))
        var pixels: [Point2] = []
        for j in 0..<rows {
            let y: Double = (h - 1) * Double(j) / Double(rows - 1)
            for i in 0..<columns {
                let x: Double = (w - 1) * Double(i) / Double(columns - 1)
                pixels.append(Point2(x: x, y: y))
            }
        }
        let v0 = try Self.rays(first, pixels), v1 = try Self.rays(second, pixels)
        let p0 = v0.map { v in range.map { r in v.map { $0 * r } } ?? v }
        // Weights: mrcal's 1 / (sigma0 sigma1)^2, or the middle of the image.
        var weights: [Double]
        var weighted = false
        if let u0 = try? ProjectionUncertainty(first), let u1 = try? ProjectionUncertainty(second) {
            let s0 = try u0.sigmas(at: pixels, range: range), s1 = try u1.sigmas(at: pixels, range: range)
            weights = zip(s0, s1).map { (a: ProjectionUncertainty.Point, b: ProjectionUncertainty.Point) -> Double in
                let product: Double = max(a.sigma * b.sigma, 1e-12)
                return 1 / (product * product)
            }
            weighted = true
        } else {
            let centre = Point2(x: (w - 1) / 2, y: (h - 1) / 2), radius = min(w, h) / 6
            weights = pixels.map { $0.distance(to: centre) <= radius ? 1 : 0 }
        }
        let total = weights.reduce(0, +)
        weights = weights.map { $0 / max(total, 1e-300) }
        let (rvec, tvec) = Self.fit(p0, onto: v1, weights: weights, translation: range != nil)
        let moved = try second.project(p0.map { ($0[0], $0[1], $0[2]) }, pose: Pose3D(rvec: rvec, tvec: tvec))
        let points = zip(pixels, moved).map { Point(x: $0.x, y: $0.y, difference: $0.distance(to: $1)) }
        return Result(points: points, columns: columns, rows: rows, rotation: Pose3D(rvec: rvec, tvec: tvec).rotation, translation: tvec,
                      weighted: weighted)
    }

    /// Unit rays of pixels through a calibration.
    static func rays(_ c: CameraCalibration, _ pixels: [Point2]) throws -> [[Double]] {
        var normalized = [Double](repeating: 0, count: 2 * pixels.count)
        try Bridge.check(cvb_undistort_points(pixels.flatMap { [$0.x, $0.y] }, Int32(pixels.count), c.cameraMatrix, c.distortion,
                                              Int32(c.distortion.count), c.bridgeModel, &normalized))
        return (0..<pixels.count).map { i in
            let x = normalized[2 * i], y = normalized[2 * i + 1], n = (x * x + y * y + 1).squareRoot()
            return [x / n, y / n, 1 / n]
        }
    }

    /// The rotation (and with `translation` the translation) that turns points `p` best onto the
    /// directions `v`: weighted least squares of the difference between the unit vector towards each
    /// moved point and its direction (the angle between them, for small angles), by Gauss-Newton.
    static func fit(_ p: [[Double]], onto v: [[Double]], weights: [Double], translation: Bool) -> (rvec: [Double], tvec: [Double]) {
        var x = [Double](repeating: 0, count: 6)
        let n = translation ? 6 : 3
        func residuals(_ x: [Double]) -> [Double] {
            let r = Pose3D(rvec: Array(x[0..<3]), tvec: [0, 0, 0]).rotation
            var out: [Double] = []
            out.reserveCapacity(3 * p.count)
            for (k, q) in p.enumerated() where weights[k] > 0 {
                let m = (0..<3).map { i in r[3 * i] * q[0] + r[3 * i + 1] * q[1] + r[3 * i + 2] * q[2] + x[3 + i] }
                let length = (m[0] * m[0] + m[1] * m[1] + m[2] * m[2]).squareRoot()
                let s = weights[k].squareRoot()
                for i in 0..<3 { out.append(s * (m[i] / length - v[k][i])) }
            }
            return out
        }
        for _ in 0..<30 {
            let e = residuals(x)
            // Numeric Jacobian: translations in the points' units, rotations in radians.
            let scale = p.map { ($0[0] * $0[0] + $0[1] * $0[1] + $0[2] * $0[2]).squareRoot() }.max() ?? 1
            var columns: [[Double]] = []
            for j in 0..<n {
                let step = j < 3 ? 1e-7 : 1e-7 * scale
                var plus = x, minus = x
                plus[j] += step
                minus[j] -= step
                columns.append(zip(residuals(plus), residuals(minus)).map { ($0 - $1) / (2 * step) })
            }
            var a = [Double](repeating: 0, count: n * n), b = [Double](repeating: 0, count: n)
            for i in 0..<n {
                for j in 0..<n { a[i * n + j] = zip(columns[i], columns[j]).map(*).reduce(0, +) }
                b[i] = -zip(columns[i], e).map(*).reduce(0, +)
            }
            guard let delta = LinearSystem.solve(a, b, size: n) else { break }
            for j in 0..<n { x[j] += delta[j] }
            if delta.map(abs).max()! < 1e-13 { break }
        }
        return (Array(x[0..<3]), Array(x[3..<6]))
    }
}

extension ProjectionDifference.Result {
    /// Median and worst difference over the grid.
    public var median: Double { points.map(\.difference).sorted()[points.count / 2] }
    public var worst: ProjectionDifference.Point { points.max { $0.difference < $1.difference }! }
    /// The fitted rotation's angle (degrees).
    public var rotationDegrees: Double {
        acos(max(-1, min(1, (rotation[0] + rotation[4] + rotation[8] - 1) / 2))) * 180 / Double.pi
    }
}

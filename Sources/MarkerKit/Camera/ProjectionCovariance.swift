import CVBridge
import Foundation

/// What a calibration keeps to say how far off a projection through it can be (mrcal's projection
/// uncertainty, its "mean frames" method): the covariance of its intrinsics (fx fy cx cy, then the
/// distortion coefficients) together with the rotation and translation (theta, u) by which errors in the
/// calibration views' poses move a fixed point on average, from the solve's Jacobian and the noise of
/// its corners (the residuals' RMS over the degrees of freedom). (4 + coefficients + 6) squared numbers.
public struct ProjectionCovariance: Sendable, Equatable {
    /// Row-major, `size` x `size`, px^2 and the parameters' units (rad, mm).
    public let matrix: [Double]
    /// Observation noise: one corner coordinate's standard deviation (px).
    public let noise: Double
    /// Views the calibration was solved from.
    public let views: Int

    public init(matrix: [Double], noise: Double, views: Int, model: CameraCalibration.Model) throws {
        let size = Self.size(for: model)
        guard matrix.count == size * size else {
            throw MarkerKitError.badInput("the projection covariance of a \(model.rawValue) calibration is \(size)x\(size), not \(matrix.count) numbers")
        }
        guard matrix.allSatisfy(\.isFinite), noise.isFinite, noise >= 0, views > 0,
              (0..<size).allSatisfy({ matrix[$0 * size + $0] >= 0 }),
              (0..<size).allSatisfy({ i in (0..<size).allSatisfy { j in
                  abs(matrix[i * size + j] - matrix[j * size + i]) <= 1e-9 * max(1, abs(matrix[i * size + j])) } }) else {
            throw MarkerKitError.badInput("the projection covariance must be finite and symmetric with a non-negative diagonal, the noise finite and not negative, the views 1 or more")
        }
        self.matrix = matrix
        self.noise = noise
        self.views = views
    }

    /// Rows and columns for a lens model: its intrinsics and six for the mean frame.
    public static func size(for model: CameraCalibration.Model) -> Int { 4 + model.distortionCount + 6 }
}

/// The projection uncertainty of a calibration over its image: for each pixel, the standard deviation,
/// in the worst direction, of where the point that pixel sees (at `range` along its ray, or at infinity)
/// projects, when the calibration is redone with new noise on the same views.
public struct ProjectionUncertainty: Sendable {
    public struct Point: Codable, Sendable, Equatable {
        public let x: Double
        public let y: Double
        /// Worst-direction standard deviation (px): the square root of the larger eigenvalue.
        public let sigma: Double
    }

    public let calibration: CameraCalibration
    public let covariance: ProjectionCovariance

    /// Refuses a calibration that carries no covariance (imported, or made before it was recorded).
    public init(_ calibration: CameraCalibration) throws {
        guard let covariance = calibration.projectionCovariance else {
            throw MarkerKitError.badInput("calibration '\(calibration.name)' carries no projection covariance (it was imported or made before MarkerKit recorded one): calibrate again with 'markerkit calibrate'")
        }
        self.calibration = calibration
        self.covariance = covariance
    }

    /// The 2x2 covariance (px^2, row-major) of each pixel's projection; `range` in mm, nil for infinity.
    public func covariances(at pixels: [Point2], range: Double?) throws -> [[Double]] {
        let c = calibration
        var out = [Double](repeating: 0, count: 4 * pixels.count)
        try Bridge.check(cvb_projection_uncertainty(pixels.flatMap { [$0.x, $0.y] }, Int32(pixels.count), c.cameraMatrix, c.distortion,
                                                    Int32(c.distortion.count), c.bridgeModel, covariance.matrix, range ?? 0, &out))
        return (0..<pixels.count).map { Array(out[(4 * $0)..<(4 * $0 + 4)]) }
    }

    /// Worst-direction standard deviations at `pixels`.
    public func sigmas(at pixels: [Point2], range: Double?) throws -> [Point] {
        try zip(pixels, covariances(at: pixels, range: range)).map { p, q in Point(x: p.x, y: p.y, sigma: Self.worst(q)) }
    }

    /// A columns x rows grid of pixel centres spanning the image corner to corner, or, with `margin`, the
    /// image without that share of its width and height on each side.
    public func grid(columns: Int, rows: Int, margin: Double = 0) -> [Point2] {
        let w = Double(calibration.imageWidth - 1), h = Double(calibration.imageHeight - 1)
        var points: [Point2] = []
        for j in 0..<rows {
            let y: Double = h * (margin + (1 - 2 * margin) * Double(j) / Double(max(rows - 1, 1)))
            for i in 0..<columns {
                let x: Double = w * (margin + (1 - 2 * margin) * Double(i) / Double(max(columns - 1, 1)))
                points.append(Point2(x: x, y: y))
            }
        }
        return points
    }

    /// The map over a columns x rows grid (`UncertaintyMap`).
    public func map(columns: Int, rows: Int, range: Double?) throws -> UncertaintyMap {
        try UncertaintyMap(self, columns: columns, rows: rows, range: range)
    }

    /// The unit eigenvector of the larger eigenvalue of a symmetric 2x2 matrix: the worst direction.
    public static func worstDirection(_ q: [Double]) -> (x: Double, y: Double) {
        let a = q[0], b = (q[1] + q[2]) / 2, d = q[3], sigma = worst(q)
        var (ux, uy) = a >= d ? (sigma * sigma - d, b) : (b, sigma * sigma - a)
        if abs(ux) + abs(uy) < 1e-300 { (ux, uy) = a >= d ? (1, 0) : (0, 1) }
        let length = (ux * ux + uy * uy).squareRoot()
        return (ux / length, uy / length)
    }

    /// sqrt of the larger eigenvalue of a symmetric 2x2 matrix.
    public static func worst(_ q: [Double]) -> Double {
        let a = q[0], b = (q[1] + q[2]) / 2, d = q[3]
        let mean = (a + d) / 2, spread = (((a - d) / 2) * ((a - d) / 2) + b * b).squareRoot()
        return max(0, mean + spread).squareRoot()
    }
}

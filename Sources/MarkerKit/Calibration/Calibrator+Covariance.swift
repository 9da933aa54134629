import CVBridge
import Foundation

extension Calibrator {
    /// How the solved (free) intrinsics make all of them, n x free row-major: fixed ones are rows of
    /// zeros (p1 and p2 with `zeroTangent`, k3 with `fixK3`), a fixed aspect ratio one column (fx = (fx/fy) fy).
    func parameterization(fx: Double, fy: Double) -> (matrix: [Double], free: Int) {
        let n = 4 + model.distortionCount
        var columns: [[Double]] = []
        func unit(_ i: Int) -> [Double] { (0..<n).map { $0 == i ? 1 : 0 } }
        if fixAspect {
            var f = unit(1)
            f[0] = fx / fy
            columns.append(f)
        } else {
            columns += [unit(0), unit(1)]
        }
        columns += [unit(2), unit(3)]
        for k in 0..<model.distortionCount {
            let tangential = model != .fisheye && (k == 2 || k == 3)
            if zeroTangent && tangential { continue }
            if fixK3 && model == .opencv5 && k == 4 { continue }
            columns.append(unit(4 + k))
        }
        let matrix = (0..<n).flatMap { row in columns.map { $0[row] } }
        return (matrix, columns.count)
    }

    /// The projection covariance of a solved calibration from the views it used (their corners, IDs and
    /// poses); nil when the views cannot give one (fewer observations than parameters).
    func projectionCovariance(of calibration: CameraCalibration, views: [View], points: [(Double, Double, Double)]) throws -> ProjectionCovariance? {
        let used = views.filter { $0.status == .used }
        let object = used.flatMap { $0.cornerIDs.flatMap { [points[$0].0, points[$0].1, points[$0].2] } }
        let counts = used.map { Int32($0.corners.count) }
        let image = used.flatMap { $0.corners.flatMap { [$0.x, $0.y] } }
        let (p, free) = parameterization(fx: calibration.fx, fy: calibration.fy)
        let size = ProjectionCovariance.size(for: calibration.model)
        var matrix = [Double](repeating: 0, count: size * size), noise = 0.0
        let status = cvb_projection_covariance(object, counts, image, Int32(used.count), calibration.cameraMatrix, calibration.distortion,
                                               Int32(calibration.distortion.count), calibration.bridgeModel, p, Int32(free),
                                               used.flatMap(\.rvec), used.flatMap(\.tvec), &matrix, &noise)
        guard status >= 0 else { return nil }
        // Symmetric to the last bit, as the file check asks.
        for i in 0..<size {
            for j in 0..<i {
                let mean = (matrix[i * size + j] + matrix[j * size + i]) / 2
                (matrix[i * size + j], matrix[j * size + i]) = (mean, mean)
            }
        }
        return try ProjectionCovariance(matrix: matrix, noise: noise, views: used.count, model: calibration.model)
    }
}

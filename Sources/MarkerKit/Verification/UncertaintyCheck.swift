import CVBridge
import Foundation

/// Does the projection uncertainty mean what it says? Over many seeds, views of a known camera are
/// rendered, calibrated by MarkerKit's pipeline, and at pixels on a grid the true error of the calibration
/// is measured the way the uncertainty is defined (mrcal's mean of frames): the point the true camera sees
/// at the pixel is fixed in each view's board frame by the true poses, brought back by the estimated
/// poses and averaged, and projected by the estimate. Each error is divided by the predicted sigma along
/// the predicted worst direction: when the prediction is right these ratios have an RMS of 1.
public struct UncertaintyCheck: Codable, Sendable {
    public let seeds: Int
    public let pixelsPerSeed: Int
    /// The range the points are at (mm), nil at infinity.
    public let range: Double?
    /// RMS of (error along the worst direction) / sigma; 1 for a right prediction.
    public let rmsRatio: Double
    /// sqrt(mean(e' S^-1 e) / 2): the same over both directions; 1 for a right prediction.
    public let mahalanobis: Double
    /// Median predicted worst-direction sigma and median true error length (px).
    public let medianSigma: Double
    public let medianError: Double

    public var line: String {
        String(format: "projection uncertainty %@ over %d seeds x %d pixels: RMS of true error / predicted sigma (worst direction) %.3f, both directions %.3f (1 when the prediction is right); median sigma %.3f px, median true error %.3f px",
               range.map { "at \(Length.format($0)) mm" } ?? "at infinity", seeds, pixelsPerSeed, rmsRatio, mahalanobis, medianSigma, medianError)
    }

    /// Runs `seeds` calibrations of `verification`'s camera (its views, noise and blur; seeds from its
    /// own seed on), with the error measured at a columns x rows grid over the image.
    public static func run(_ verification: CalibrationVerification, seeds: Int, range: Double? = nil, columns: Int = 8, rows: Int = 5,
                           checkpoint: () throws -> Void = {}) throws -> UncertaintyCheck {
        var ratios: [Double] = [], quadratic: [Double] = [], sigmas: [Double] = [], errors: [Double] = []
        let truth = verification.camera
        for k in 0..<seeds {
            var run = try CalibrationVerification(camera: truth, width: verification.width, height: verification.height, views: verification.views,
                                                  seed: verification.seed &+ UInt64(k))
            run.noise = verification.noise
            run.blur = verification.blur
            let rendered = try run.renderViews(checkpoint: checkpoint)
            let images = rendered.enumerated().map { (name: String(format: "view_%03d", $0.offset), image: $0.element.image) }
            let calibrator = Calibrator(board: run.board)
            let (views, w, h) = calibrator.findBoards(in: images)
            let result = try calibrator.calibrate(views: views, width: w, height: h, name: "check")
            let estimate = result.calibration
            let uncertainty = try ProjectionUncertainty(estimate)
            let pixels = uncertainty.grid(columns: columns, rows: rows)
            let covariances = try uncertainty.covariances(at: pixels, range: range)
            // The true and estimated pose of each view used.
            let used = result.views.enumerated().filter { $0.element.status == .used }
            let truePoses = used.map { rendered[$0.offset].scene.targets[0].pose }
            let estimatedPoses = used.map { Pose3D(rvec: $0.element.rvec, tvec: $0.element.tvec) }
            let seen = try trueErrors(at: pixels, truth: truth, estimate: estimate, truePoses: truePoses, estimatedPoses: estimatedPoses, range: range)
            for (e, q) in zip(seen, covariances) {
                let sigma = ProjectionUncertainty.worst(q)
                let a = q[0], b = (q[1] + q[2]) / 2, d = q[3]
                let u = ProjectionUncertainty.worstDirection(q)
                ratios.append((e.x * u.x + e.y * u.y) / sigma)
                let det = a * d - b * b
                if det > 0 { quadratic.append((d * e.x * e.x - 2 * b * e.x * e.y + a * e.y * e.y) / det) }
                sigmas.append(sigma)
                errors.append((e.x * e.x + e.y * e.y).squareRoot())
            }
        }
        func rms(_ v: [Double]) -> Double { (v.map { $0 * $0 }.reduce(0, +) / Double(max(v.count, 1))).squareRoot() }
        func median(_ v: [Double]) -> Double { v.isEmpty ? .nan : v.sorted()[v.count / 2] }
        return UncertaintyCheck(seeds: seeds, pixelsPerSeed: columns * rows, range: range, rmsRatio: rms(ratios),
                                mahalanobis: (quadratic.reduce(0, +) / Double(max(quadratic.count, 1)) / 2).squareRoot(),
                                medianSigma: median(sigmas), medianError: median(errors))
    }

    /// The estimate's projection error at each pixel, as the uncertainty defines it (the mean of frames).
    static func trueErrors(at pixels: [Point2], truth: CameraCalibration, estimate: CameraCalibration, truePoses: [Pose3D],
                           estimatedPoses: [Pose3D], range: Double?) throws -> [Point2] {
        let rays = try ProjectionDifference.rays(truth, pixels)
        var moved: [(Double, Double, Double)] = []
        for v in rays {
            let p = range.map { r in v.map { $0 * r } } ?? v
            var mean = [0.0, 0.0, 0.0]
            for (t, e) in zip(truePoses, estimatedPoses) {
                let rt = t.rotation, re = e.rotation
                // The point in the board's frame (by the true pose), back to the camera by the estimated pose.
                let d = range == nil ? p : [p[0] - t.tvec[0], p[1] - t.tvec[1], p[2] - t.tvec[2]]
                let local = (0..<3).map { i in rt[i] * d[0] + rt[3 + i] * d[1] + rt[6 + i] * d[2] }
                for i in 0..<3 {
                    let back = re[3 * i] * local[0] + re[3 * i + 1] * local[1] + re[3 * i + 2] * local[2]
                    mean[i] += (back + (range == nil ? 0 : e.tvec[i])) / Double(truePoses.count)
                }
            }
            moved.append((mean[0], mean[1], mean[2]))
        }
        let projected = try SceneTruth.project(moved, pose: Pose3D(rvec: [0, 0, 0], tvec: [0, 0, 0]), camera: estimate)
        return zip(projected, pixels).map { Point2(x: $0.x - $1.x, y: $0.y - $1.y) }
    }
}

import Foundation

/// A rig's cross-validation, as mrcal's is for cameras: the views split into two halves (alternately),
/// each half solved on its own, and the halves' poses compared with what their own uncertainties allow.
/// Halves that disagree by several sigma say the rig moved while the views were taken, or a lens model is
/// too lean for its lens.
public struct RigCrossValidation: Sendable {
    public struct Camera: Sendable {
        public let name: String
        /// Baseline and rotation differences between the halves (units, degrees), and their sigma.
        public let baselineDifference: Double
        public let baselineSigma: Double
        public let rotationDifference: Double
        public let rotationSigma: Double
    }

    public let cameras: [Camera]
    public let halves: (Int, Int)

    public static func run(_ calibrator: RigCalibrator, cameras: [RigCalibrator.Camera], name: String) throws -> RigCrossValidation {
        let count = cameras[0].views.count
        let halves = try [0, 1].map { half -> CameraRig in
            let part = cameras.map { camera in
                RigCalibrator.Camera(name: camera.name, views: camera.views.indices.map { v in
                    v % 2 == half ? camera.views[v] : Calibrator.View(file: camera.views[v].file, status: .noBoard, corners: [])
                }, width: camera.width, height: camera.height)
            }
            do {
                return try calibrator.calibrate(cameras: part, name: name).rig
            } catch let error as MarkerKitError {
                throw MarkerKitError.badInput("half \(half + 1) of the views cannot be solved alone (\(error.description)): cross-validation needs 6 or more views each camera used")
            }
        }
        let (a, b) = (halves[0], halves[1])
        let results = (1..<a.cameras.count).map { c -> Camera in
            let sa = a.poseSigma(of: c), sb = b.poseSigma(of: c)
            let ca = a.extrinsicCovariance(of: c), cb = b.extrinsicCovariance(of: c)
            // The RMS angle each half's rotation is off by: the root of its rotation covariance's trace.
            let rotation = ((ca[0] + ca[7] + ca[14]) + (cb[0] + cb[7] + cb[14])).squareRoot() * 180 / .pi
            return Camera(name: a.cameras[c].name, baselineDifference: abs(a.baseline(of: c) - b.baseline(of: c)),
                          baselineSigma: (sa.length * sa.length + sb.length * sb.length).squareRoot(),
                          rotationDifference: Pose3D.angleBetween(a.extrinsics[c].rvec, b.extrinsics[c].rvec), rotationSigma: rotation)
        }
        return RigCrossValidation(cameras: results, halves: ((count + 1) / 2, count / 2))
    }

    /// The largest difference in sigmas over the cameras' baselines and rotations.
    public var ratio: Double {
        cameras.map { max($0.baselineDifference / max($0.baselineSigma, 1e-300), $0.rotationDifference / max($0.rotationSigma, 1e-300)) }.max() ?? 0
    }

    public var lines: [String] {
        var lines = ["cross-validation: the rig solved from each half of the views (\(halves.0) and \(halves.1)):"]
        for c in cameras {
            lines.append(String(format: "  %@: baselines differ by %.4g (%.1f sigma), rotations by %.4f° (%.1f sigma)", c.name, c.baselineDifference,
                                c.baselineDifference / max(c.baselineSigma, 1e-300), c.rotationDifference, c.rotationDifference / max(c.rotationSigma, 1e-300)))
        }
        lines.append(ratio <= 3
            ? String(format: "  the halves agree within their uncertainty (at most %.1f sigma)", ratio)
            : String(format: "  the halves differ by %.1f sigma: the cameras moved relative to each other while the views were taken, their frames were not taken at the same instant while the board moved, or a lens model is too lean (try the opencv8 or fisheye lens model)", ratio))
        return lines
    }
}

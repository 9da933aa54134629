import Foundation

extension RigVerification {
    /// One camera's pose (relative to camera 0) in one seed, against the truth.
    public struct Row: Codable, Sendable {
        public let seed: UInt64
        public let camera: String
        /// |T - T_true| (mm) and the rotation's angle from the truth (degrees), MarkerKit's and OpenCV's.
        public let translationError: Double
        public let rotationError: Double
        public let openCVTranslationError: Double
        public let openCVRotationError: Double
        /// OpenCV's stereoCalibrate with its default flags (CALIB_FIX_INTRINSIC: each camera's own intrinsics held).
        public let openCVFixedTranslationError: Double
        public let openCVFixedRotationError: Double
        /// MarkerKit's error over its own sigma, per component of rvec then of T.
        public let ratios: [Double]
        /// The views MarkerKit's solve used, and the views OpenCV's pair used.
        public let views: Int
        public let openCVViews: Int
    }

    public struct Summary: Codable, Sendable {
        public let cameras: Int
        public let views: Int
        public let noise: Double
        public let blur: Double
        public let rows: [Row]
        public var board = "9x6 chessboard, 30 mm squares"
        /// Each seed's correlation of the extrinsics of cameras 1..n-1 (rvec, tvec each), as the solve gave it.
        public var correlations: [[Double]] = []

        static func rms(_ values: [Double]) -> Double { (values.map { $0 * $0 }.reduce(0, +) / Double(max(values.count, 1))).squareRoot() }
        public var translationRMS: Double { Self.rms(rows.map(\.translationError)) }
        public var rotationRMS: Double { Self.rms(rows.map(\.rotationError)) }
        public var openCVTranslationRMS: Double { Self.rms(rows.map(\.openCVTranslationError)) }
        public var openCVRotationRMS: Double { Self.rms(rows.map(\.openCVRotationError)) }
        public var openCVFixedTranslationRMS: Double { Self.rms(rows.map(\.openCVFixedTranslationError)) }
        public var openCVFixedRotationRMS: Double { Self.rms(rows.map(\.openCVFixedRotationError)) }
        /// RMS of error / sigma over the rotation components and over the translation components (1 when right).
        public var rotationSigmaRatio: Double { Self.rms(rows.flatMap { $0.ratios.prefix(3) }) }
        public var translationSigmaRatio: Double { Self.rms(rows.flatMap { $0.ratios.suffix(3) }) }

        public var table: String {
            var lines = ["rig of \(cameras) rendered cameras, \(views) views a seed of a \(board), noise \(noise), blur \(blur); each camera's pose relative to camera 0 against the truth", ""]
            lines.append("                                 MarkerKit          OpenCV joint       OpenCV default")
            lines.append("seed  camera           views  T err mm  R err °   views  T err mm  R err °   T err mm  R err °   err/sigma (rvec, T)")
            for r in rows {
                lines.append(String(format: "%4llu  %@ %5d  %8.4f  %7.4f   %5d  %8.4f  %7.4f   %8.4f  %7.4f   %@", r.seed, r.camera.padding(toLength: 15, withPad: " ", startingAt: 0),
                                    r.views, r.translationError, r.rotationError, r.openCVViews, r.openCVTranslationError, r.openCVRotationError,
                                    r.openCVFixedTranslationError, r.openCVFixedRotationError, r.ratios.map { String(format: "%+.2f", $0) }.joined(separator: " ")))
            }
            lines.append("")
            lines.append(String(format: "RMS over %d poses: T error %.4f mm, R error %.4f°", rows.count, translationRMS, rotationRMS))
            lines.append(String(format: "  OpenCV joint (CALIB_USE_INTRINSIC_GUESS): T %.4f mm, R %.4f°; MarkerKit / OpenCV %.2f, %.2f", openCVTranslationRMS, openCVRotationRMS,
                                translationRMS / openCVTranslationRMS, rotationRMS / openCVRotationRMS))
            lines.append(String(format: "  OpenCV default (CALIB_FIX_INTRINSIC): T %.4f mm, R %.4f°; MarkerKit / OpenCV %.2f, %.2f", openCVFixedTranslationRMS, openCVFixedRotationRMS,
                                translationRMS / openCVFixedTranslationRMS, rotationRMS / openCVFixedRotationRMS))
            lines.append(String(format: "error / sigma RMS: rotation %.3f, translation %.3f (1 when MarkerKit's sigma means what it says)", rotationSigmaRatio, translationSigmaRatio))
            if let range = expectedRange() {
                lines.append(String(format: "  right sigmas give, over these %d seeds (95%%, from the solve's own correlations): rotation %.2f-%.2f, translation %.2f-%.2f",
                                    correlations.count, range.rotation.lowerBound, range.rotation.upperBound, range.translation.lowerBound, range.translation.upperBound))
            }
            lines.append("OpenCV: " + (board.hasPrefix("ChArUco") ? "MarkerKit's ChArUco corners" : "corners by cornerSubPix 11 (stereo_calib.cpp)")
                         + ", each camera by calibrateCamera, then each pair by stereoCalibrate refining all (joint) or with its default flags (default)")
            return lines.joined(separator: "\n")
        }
    }

    /// Calibrates `seeds` rigs (this seed and the ones after) and compares them with the truth.
    public func run(seeds: Int = 1, checkpoint: () throws -> Void = {}) throws -> Summary {
        var rows: [Row] = [], correlations: [[Double]] = []
        for k in 0..<max(seeds, 1) {
            var run = try RigVerification(cameras: cameras.count, views: views, seed: seed &+ UInt64(k))
            run.noise = noise
            run.blur = blur
            run.charuco = charuco
            let one = try run.runOne(checkpoint: checkpoint)
            rows += one.rows
            if let correlation = one.correlation { correlations.append(correlation) }
        }
        var summary = Summary(cameras: cameras.count, views: views, noise: noise, blur: blur, rows: rows)
        summary.correlations = correlations.count == max(seeds, 1) ? correlations : []
        if let charuco { summary.board = "ChArUco board \(charuco.squaresX)x\(charuco.squaresY), \(Length.format(charuco.square.millimetres)) mm squares (views may leave an image; OpenCV's stereoCalibrate given MarkerKit's corners)" }
        return summary
    }

    func runOne(checkpoint: () throws -> Void) throws -> (rows: [Row], correlation: [Double]?) {
        let renders = try renders(checkpoint: checkpoint)
        func search(_ calibrator: Calibrator) -> [RigCalibrator.Camera] {
            cameras.indices.map { c in
                let views = renders[c].enumerated().map { v, image -> Calibrator.View in
                    let name = String(format: "cam%d/view_%03d", c, v)
                    guard let image else { return Calibrator.View(file: name, status: .noBoard, corners: []) }
                    return calibrator.findBoards(in: [(name: name, image: image)]).views[0]
                }
                return RigCalibrator.Camera(name: "cam\(c)", views: views, width: cameras[c].imageWidth, height: cameras[c].imageHeight)
            }
        }
        let ours = Calibrator(target: target)
        let result = try RigCalibrator(calibrator: ours).calibrate(cameras: search(ours), name: "verify")
        try checkpoint()
        // OpenCV's corners for a chessboard (cornerSubPix 11); a ChArUco board's are MarkerKit's for both.
        var plain = Calibrator(target: target)
        plain.halfWindow = 11
        plain.fitsCorners = false
        plain.outlierFactor = .infinity
        plain.maxFocalUncertainty = .infinity
        let theirs = try search(plain).map { try plain.calibrate(views: $0.views, width: $0.width, height: $0.height, name: $0.name) }
        let rows = try (1..<cameras.count).map { c in
            let estimate = result.rig.extrinsics[c], truth = extrinsics[c]
            let opencv = try OpenCVStereo.calibrate(theirs[0], theirs[c], first: theirs[0].calibration, second: theirs[c].calibration, fixIntrinsic: false)
            let fixed = try OpenCVStereo.calibrate(theirs[0], theirs[c], first: theirs[0].calibration, second: theirs[c].calibration, fixIntrinsic: true)
            let cov = result.rig.extrinsicCovariance(of: c)
            let difference = zip(estimate.rvec + estimate.tvec, truth.rvec + truth.tvec).map { $0 - $1 }
            let both = zip(theirs[0].views, theirs[c].views).filter { $0.status == .used && $1.status == .used }.count
            let seen = zip(result.single[0].views, result.single[c].views).filter { $0.status == .used || $1.status == .used }.count
            return Row(seed: seed, camera: cameras[c].name, translationError: Self.distance(estimate.tvec, truth.tvec),
                       rotationError: Pose3D.angleBetween(estimate.rvec, truth.rvec),
                       openCVTranslationError: Self.distance(opencv.pose.tvec, truth.tvec), openCVRotationError: Pose3D.angleBetween(opencv.pose.rvec, truth.rvec),
                       openCVFixedTranslationError: Self.distance(fixed.pose.tvec, truth.tvec), openCVFixedRotationError: Pose3D.angleBetween(fixed.pose.rvec, truth.rvec),
                       ratios: (0..<6).map { difference[$0] / cov[7 * $0].squareRoot() }, views: seen, openCVViews: both)
        }
        return (rows, Summary.correlation(result.rig.extrinsicCovariance))
    }

    static func distance(_ a: [Double], _ b: [Double]) -> Double { zip(a, b).map { ($0 - $1) * ($0 - $1) }.reduce(0, +).squareRoot() }
}

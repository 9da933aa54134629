import Foundation

/// Cameras calibrated together: each camera's intrinsics and its pose relative to the first camera, with
/// the covariance of those poses and the errors per camera and per pair. Camera 0 is the rig's frame.
public struct CameraRig: Sendable, Equatable {
    /// The RMS reprojection error of two cameras over the views both saw (both cameras' corners).
    public struct PairError: Sendable, Equatable {
        public let first: Int
        public let second: Int
        public let rms: Double
        public let views: Int

        public init(first: Int, second: Int, rms: Double, views: Int) {
            self.first = first
            self.second = second
            self.rms = rms
            self.views = views
        }
    }

    public var name: String
    public var cameras: [CameraCalibration]
    /// Each camera's pose relative to camera 0, as OpenCV's stereo R and T: x_c = R x_0 + T, lengths in
    /// `units`. The first is the identity.
    public var extrinsics: [Pose3D]
    /// The unit of every length (the board's square size was given in it).
    public var units: String
    /// The covariance of (rvec, tvec) of cameras 1..n-1, in that order: 6(n-1) square, row-major (rad, units).
    public var extrinsicCovariance: [Double]
    /// The covariance of every camera's intrinsics (fx fy cx cy and its coefficients, fixed ones zero) and
    /// then the extrinsics of cameras 1..n-1: what triangulation uncertainty propagates.
    public var covariance: [Double]
    /// One corner coordinate's standard deviation in the joint solve (px).
    public var noise: Double
    /// Each camera's RMS reprojection error in the joint solve (px).
    public var cameraRMS: [Double]
    public var pairErrors: [PairError]
    /// Views in which at least one camera saw the board.
    public var views: Int
    public var calibrationTime: String

    public init(name: String, cameras: [CameraCalibration], extrinsics: [Pose3D], units: String, extrinsicCovariance: [Double],
                covariance: [Double], noise: Double, cameraRMS: [Double], pairErrors: [PairError], views: Int,
                calibrationTime: String) throws {
        let n = cameras.count
        guard n >= 2 else { throw MarkerKitError.badInput("a rig has 2 cameras or more, not \(n)") }
        guard extrinsics.count == n, extrinsics.allSatisfy({ $0.rvec.count == 3 && $0.tvec.count == 3 }),
              extrinsics.allSatisfy({ ($0.rvec + $0.tvec).allSatisfy(\.isFinite) }) else {
            throw MarkerKitError.badInput("a rig of \(n) cameras needs \(n) finite poses (3 rotation and 3 translation values each)")
        }
        let e = 6 * (n - 1)
        guard extrinsicCovariance.count == e * e, extrinsicCovariance.allSatisfy(\.isFinite) else {
            throw MarkerKitError.badInput("the extrinsic covariance of \(n) cameras is \(e)x\(e) finite numbers")
        }
        let g = Self.covarianceSize(cameras)
        guard covariance.isEmpty || (covariance.count == g * g && covariance.allSatisfy(\.isFinite)) else {
            throw MarkerKitError.badInput("the rig covariance of these cameras is \(g)x\(g) finite numbers")
        }
        guard cameraRMS.count == n, (cameraRMS + [noise]).allSatisfy({ $0.isFinite && $0 >= 0 }), views >= 0 else {
            throw MarkerKitError.badInput("a rig needs one finite RMS per camera, a finite noise and a view count")
        }
        guard pairErrors.allSatisfy({ $0.first >= 0 && $0.first < $0.second && $0.second < n && $0.rms.isFinite && $0.views >= 0 }) else {
            throw MarkerKitError.badInput("a pair's cameras must be two of the rig's, first before second")
        }
        self.name = name
        self.cameras = cameras
        self.extrinsics = extrinsics
        self.units = units
        self.extrinsicCovariance = extrinsicCovariance
        self.covariance = covariance
        self.noise = noise
        self.cameraRMS = cameraRMS
        self.pairErrors = pairErrors
        self.views = views
        self.calibrationTime = calibrationTime
    }

    /// Rows of `covariance`: every camera's intrinsics, then six per camera after the first.
    public static func covarianceSize(_ cameras: [CameraCalibration]) -> Int {
        cameras.reduce(0) { $0 + 4 + $1.model.distortionCount } + 6 * (cameras.count - 1)
    }

    /// Where camera `c`'s optical centre is in camera 0's frame (units): -R^T T.
    public func centre(of c: Int) -> [Double] {
        let r = extrinsics[c].rotation, t = extrinsics[c].tvec
        return (0..<3).map { i in -(r[i] * t[0] + r[3 + i] * t[1] + r[6 + i] * t[2]) }
    }

    /// The distance between the optical centres of cameras 0 and `c` (units).
    public func baseline(of c: Int) -> Double { extrinsics[c].tvec.map { $0 * $0 }.reduce(0, +).squareRoot() }

    /// The angle of camera `c`'s rotation relative to camera 0 (degrees).
    public func rotationAngle(of c: Int) -> Double { Pose3D.angleBetween([0, 0, 0], extrinsics[c].rvec) }

    /// The 6x6 covariance of camera `c`'s (rvec, tvec), `c` >= 1.
    public func extrinsicCovariance(of c: Int) -> [Double] {
        let size = 6 * (cameras.count - 1), at = 6 * (c - 1)
        return (0..<36).map { extrinsicCovariance[(at + $0 / 6) * size + at + $0 % 6] }
    }

    /// Standard deviations of camera `c`'s pose: the baseline's length (units), its direction (degrees) and
    /// the rotation (degrees, the largest over directions), from the extrinsic covariance.
    public func poseSigma(of c: Int) -> (length: Double, direction: Double, rotation: Double) {
        let cov = extrinsicCovariance(of: c), t = extrinsics[c].tvec, b = baseline(of: c)
        // The baseline is |T|: its variance is u^T Ctt u along the unit u = T / |T|; the direction's is the
        // rest of Ctt's trace over b^2.
        let u = t.map { $0 / max(b, 1e-300) }
        var along = 0.0, trace = 0.0
        for i in 0..<3 {
            trace += cov[(3 + i) * 6 + 3 + i]
            for j in 0..<3 { along += u[i] * cov[(3 + i) * 6 + 3 + j] * u[j] }
        }
        let across = max(0, trace - along).squareRoot() / max(b, 1e-300)
        let rotation = Self.largestEigenvalue3(cov, offset: 0, stride: 6).squareRoot()
        return (max(0, along).squareRoot(), across * 180 / .pi, rotation * 180 / .pi)
    }

    /// The largest eigenvalue of a symmetric 3x3 block (power iteration, enough for a covariance).
    static func largestEigenvalue3(_ m: [Double], offset: Int, stride: Int) -> Double {
        func at(_ i: Int, _ j: Int) -> Double { m[(offset + i) * stride + offset + j] }
        var v = [1.0, 1.0, 1.0], value = 0.0
        for _ in 0..<100 {
            let w = (0..<3).map { i in (0..<3).reduce(0.0) { $0 + at(i, $1) * v[$1] } }
            let norm = w.map { $0 * $0 }.reduce(0, +).squareRoot()
            guard norm > 0 else { return 0 }
            value = norm
            v = w.map { $0 / norm }
        }
        return value
    }
}

extension CameraRig {
    /// Two of the rig's cameras named `FIRST,SECOND` (`--pair`), or the first two when nil.
    public func pair(named text: String?) throws -> (Int, Int) {
        guard let text else { return (0, 1) }
        let names = text.split(separator: ",").map(String.init)
        guard names.count == 2, let a = cameras.firstIndex(where: { $0.name == names[0] }), let b = cameras.firstIndex(where: { $0.name == names[1] }), a != b else {
            throw MarkerKitError.invalidArgument("a pair is two of the rig's cameras, FIRST,SECOND (cameras: \(cameras.map(\.name).joined(separator: ", ")))")
        }
        return (a, b)
    }
}

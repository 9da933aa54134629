import CVBridge
import Foundation

/// The rectification of two cameras of a rig (cv::stereoRectify, or its fisheye twin, with zero disparity
/// at infinity): rotations R1 R2 that make their image rows one, projections P1 P2 and the
/// disparity-to-depth matrix Q, as OpenCV's stereo sample writes them, and the maps that resample each
/// camera's images. Both cameras must share an image size and a lens model.
public struct StereoRectification: Sendable {
    public let first: Int
    public let second: Int
    /// Row-major: R1 R2 3x3, P1 P2 3x4, Q 4x4.
    public let r1: [Double], r2: [Double], p1: [Double], p2: [Double], q: [Double]
    public let width: Int
    public let height: Int
    private let cameras: (CameraCalibration, CameraCalibration)

    /// `alpha` 0 keeps only valid pixels, 1 every source pixel (the balance for fisheye lenses).
    public init(rig: CameraRig, first: Int = 0, second: Int = 1, alpha: Double = 0) throws {
        guard rig.cameras.indices.contains(first), rig.cameras.indices.contains(second), first != second else {
            throw MarkerKitError.invalidArgument("a rectification takes two different cameras of the rig's \(rig.cameras.count)")
        }
        guard alpha.isFinite, (0...1).contains(alpha) else { throw MarkerKitError.invalidArgument("alpha \(alpha) is outside 0..1") }
        let a = rig.cameras[first], b = rig.cameras[second]
        guard a.imageWidth == b.imageWidth, a.imageHeight == b.imageHeight, a.imageWidth > 0 else {
            throw MarkerKitError.badInput("cameras '\(a.name)' (\(a.imageWidth)x\(a.imageHeight)) and '\(b.name)' (\(b.imageWidth)x\(b.imageHeight)) differ in image size: a rectified pair shares one")
        }
        guard a.model == b.model else {
            throw MarkerKitError.badInput("cameras '\(a.name)' (\(a.model.rawValue)) and '\(b.name)' (\(b.model.rawValue)) differ in lens model: a rectified pair shares one")
        }
        // The second camera relative to the first: x_b = R x_a + T.
        let relative = RigMath.compose(RigMath.inverse(rig.extrinsics[first]), then: rig.extrinsics[second])
        var r1 = [Double](repeating: 0, count: 9), r2 = r1, p1 = [Double](repeating: 0, count: 12), p2 = p1, q = [Double](repeating: 0, count: 16)
        try Bridge.check(cvb_stereo_rectify(a.cameraMatrix, a.distortion, b.cameraMatrix, b.distortion, Int32(a.distortion.count), a.bridgeModel,
                                            Int32(a.imageWidth), Int32(a.imageHeight), relative.rotation, relative.tvec, alpha,
                                            &r1, &r2, &p1, &p2, &q))
        guard (r1 + r2 + p1 + p2 + q).allSatisfy(\.isFinite) else {
            throw MarkerKitError.badInput("the rectification of '\(a.name)' and '\(b.name)' is not finite: the cameras' poses do not allow one")
        }
        (self.first, self.second, self.r1, self.r2, self.p1, self.p2, self.q) = (first, second, r1, r2, p1, p2, q)
        (width, height, cameras) = (a.imageWidth, a.imageHeight, (a, b))
    }

    /// The rectified images' focal length (px).
    public var focal: Double { p1[0] }
    /// The baseline along the rectified rows (units): P2's Tx over the focal length.
    public var baseline: Double { abs(p2[3] / p2[0]) }
    /// The disparity (px) of a point at `distance` (units) in front of the pair.
    public func disparity(at distance: Double) -> Double { focal * baseline / distance }
    /// Whether the cameras sit side by side (rows aligned) rather than one above the other.
    public var horizontal: Bool { p2[3] != 0 }

    /// The maps that take `camera`'s images (0: the first, 1: the second) to rectified ones: for each
    /// rectified pixel, the source pixel's x and y (width x height each).
    public func maps(camera: Int) throws -> (x: [Float], y: [Float]) {
        let c = camera == 0 ? cameras.0 : cameras.1
        var x = [Float](repeating: 0, count: width * height), y = x
        try Bridge.check(cvb_rectify_map(c.cameraMatrix, c.distortion, Int32(c.distortion.count), c.bridgeModel, camera == 0 ? r1 : r2,
                                         camera == 0 ? p1 : p2, Int32(width), Int32(height), &x, &y))
        return (x, y)
    }

    /// A picture of `camera` (0 or 1) rectified; it must have the calibration's size.
    public func rectify(_ frame: Frame, camera: Int, maps: (x: [Float], y: [Float])) throws -> Frame {
        guard frame.width == width, frame.height == height else {
            throw MarkerKitError.badInput("the picture is \(frame.width)x\(frame.height), the rectification \(width)x\(height)")
        }
        var out = [UInt8](repeating: 0, count: frame.bytes.count)
        let status = frame.bytes.withUnsafeBufferPointer { source in
            out.withUnsafeMutableBufferPointer { target in
                cvb_remap(source.baseAddress, Int32(width), Int32(height), Int32(frame.stride), Int32(frame.format.channels), maps.x, maps.y,
                          target.baseAddress)
            }
        }
        try Bridge.check(status)
        return Frame(width: width, height: height, stride: frame.stride, format: frame.format, bytes: out)
    }

    /// Where pixels of `camera` (0 or 1) land in its rectified image (cv::undistortPoints with R and P).
    public func rectified(_ points: [Point2], camera: Int) throws -> [Point2] {
        let c = camera == 0 ? cameras.0 : cameras.1
        var normalized = [Double](repeating: 0, count: 2 * points.count)
        try Bridge.check(cvb_undistort_points(points.flatMap { [$0.x, $0.y] }, Int32(points.count), c.cameraMatrix, c.distortion,
                                              Int32(c.distortion.count), c.bridgeModel, &normalized))
        let r = camera == 0 ? r1 : r2, p = camera == 0 ? p1 : p2
        return points.indices.map { i in
            let v = [normalized[2 * i], normalized[2 * i + 1], 1.0]
            let w = (0..<3).map { k in r[3 * k] * v[0] + r[3 * k + 1] * v[1] + r[3 * k + 2] * v[2] }
            return Point2(x: p[0] * w[0] / w[2] + p[2], y: p[5] * w[1] / w[2] + p[6])
        }
    }
}

import Foundation

/// Renders views of a checkerboard seen by a rig of known cameras and poses (two or three cameras with
/// different lenses, the third with a different image size), calibrates the rig with MarkerKit's joint
/// solve and with OpenCV's pipeline (corners by cornerSubPix 11 as stereo_calib.cpp finds them, each camera
/// calibrated, then cv::stereoCalibrate of each pair refining all from there), and compares each camera's
/// pose relative to camera 0 with the truth, and MarkerKit's error with its own sigma.
public struct RigVerification {
    public let cameras: [CameraCalibration]
    /// The true poses, x_c = R x_0 + T (mm).
    public let extrinsics: [Pose3D]
    public let views: Int
    public let seed: UInt64
    public var noise: Double = 0
    public var blur: Double = 0
    public let board: Checkerboard
    /// A ChArUco board instead of the chessboard: views may then leave a camera's image, and a camera
    /// that sees 12 of its corners or more counts.
    public var charuco: CharucoBoard?

    /// The board the views show.
    public var target: CalibrationTarget { charuco.map { .charuco($0) } ?? .checkerboard(board) }

    /// The built-in rig of `count` cameras (2 or 3): a 1280x720 webcam; a second 1280x720 camera with a
    /// longer, less distorting lens 120 mm to its right, turned 3° in and rolled 0.5°; a third 1024x768 with a
    /// wider lens 60 mm above and 40 mm right, tilted 2° down and turned 2°.
    public init(cameras count: Int, views: Int, seed: UInt64) throws {
        try InputRange.check(count, in: 2...3, "a rig of")
        try InputRange.check(views, in: 3...RenderLimits.calibrationViews.upperBound, "a view count of")
        var cameras = [BuiltInCamera.webcam(width: 1280, height: 720)]
        cameras.append(try CameraCalibration(name: "builtin-right", model: .opencv5, cameraMatrix: [1150, 0, 636.2, 0, 1151.5, 364.8, 0, 0, 1],
                                             distortion: [-0.06, 0.03, -0.0003, 0.0005, 0], imageWidth: 1280, imageHeight: 720))
        cameras.append(try CameraCalibration(name: "builtin-top", model: .opencv5, cameraMatrix: [700, 0, 515.1, 0, 699.2, 380.6, 0, 0, 1],
                                             distortion: [-0.18, 0.09, 0.0004, 0.0002, -0.02], imageWidth: 1024, imageHeight: 768))
        func pose(centre: [Double], rvec: [Double]) -> Pose3D {
            let r = Pose3D(rvec: rvec, tvec: [0, 0, 0]).rotation
            return Pose3D(rvec: rvec, tvec: (0..<3).map { i in -(r[3 * i] * centre[0] + r[3 * i + 1] * centre[1] + r[3 * i + 2] * centre[2]) })
        }
        let degree = Double.pi / 180
        let extrinsics = [Pose3D(rvec: [0, 0, 0], tvec: [0, 0, 0]), pose(centre: [120, 0, 0], rvec: [0, -3 * degree, 0.5 * degree]),
                          pose(centre: [40, -60, 5], rvec: [-2 * degree, -2 * degree, 0])]
        self.cameras = Array(cameras.prefix(count))
        self.extrinsics = Array(extrinsics.prefix(count))
        self.views = views
        self.seed = seed
        board = try Checkerboard(innerColumns: 9, innerRows: 6, square: .mm(30))
    }

    /// The board's pose in camera 0 for each view: held before the rig's middle at 0.45-1.1 m, tilted
    /// 10-45° in directions spread around the circle; a view is kept when two cameras or more see the
    /// whole board. `seen[v][c]` says which cameras see it.
    public func boardPoses() throws -> (poses: [Pose3D], seen: [[Bool]]) {
        var random = SeededRandom(seed: seed)
        let target = self.target, s = target.square.millimetres
        let centre = charuco.map { (Double($0.squaresX) * s / 2, Double($0.squaresY) * s / 2) }
            ?? (Double(board.innerColumns - 1) * s / 2, Double(board.innerRows - 1) * s / 2)
        let inner = (0..<(target.innerColumns * target.innerRows)).map(target.point(of:))
        let rig = try CameraRig(name: "truth", cameras: cameras, extrinsics: extrinsics, units: "mm",
                                extrinsicCovariance: [Double](repeating: 0, count: 36 * (cameras.count - 1) * (cameras.count - 1)), covariance: [],
                                noise: 0, cameraRMS: cameras.map { _ in 0 }, pairErrors: [], views: 0, calibrationTime: "")
        let middle = (0..<3).map { i in cameras.indices.map { rig.centre(of: $0)[i] }.reduce(0, +) / Double(cameras.count) }
        var poses: [Pose3D] = [], seen: [[Bool]] = [], attempts = 0
        while poses.count < views {
            attempts += 1
            guard attempts < views * 400 else { throw MarkerKitError.invalidArgument("cannot place \(views) board views before the rig") }
            let depth = random.uniform(450...1100), k = Double(poses.count)
            let tilt = (10 + 35 * k / Double(max(views - 1, 1)) + random.uniform(-2...2)) * Double.pi / 180
            let axis = k * 2.399963 + random.uniform(-0.2...0.2), spin = random.uniform(-0.3...0.3)
            let spread = charuco == nil ? 1.0 : 1.8
            let x = middle[0] + spread * random.uniform(-0.25...0.25) * depth, y = middle[1] + spread * random.uniform(-0.2...0.2) * depth
            let pose = Pose3D.held(centre: centre, at: (x, y, depth), tilt: tilt, axis: axis, spin: spin)
            let outline: [(Double, Double, Double)] = [(-2 * s, -2 * s, 0), (Double(board.innerColumns + 1) * s, -2 * s, 0),
                                                       (Double(board.innerColumns + 1) * s, Double(board.innerRows + 1) * s, 0),
                                                       (-2 * s, Double(board.innerRows + 1) * s, 0)]
            let whole = try cameras.indices.map { c -> Bool in
                let camera = cameras[c], inCamera = RigMath.compose(pose, then: extrinsics[c])
                guard inCamera.tvec[2] > 100 else { return false }
                func inside(_ p: Point2, _ margin: Double) -> Bool {
                    p.x > margin && p.y > margin && p.x < Double(camera.imageWidth) - 1 - margin && p.y < Double(camera.imageHeight) - 1 - margin
                }
                if charuco != nil {
                    return try SceneTruth.project(inner, pose: inCamera, camera: camera).filter { inside($0, 10) }.count >= 12
                }
                return try SceneTruth.project(outline, pose: inCamera, camera: camera).allSatisfy { inside($0, 2) }
            }
            guard whole.filter({ $0 }).count >= 2, whole[0] || cameras.count > 2 else { continue }
            poses.append(pose)
            seen.append(whole)
        }
        return (poses, seen)
    }

    /// Each camera's views: the render of every view it sees whole, reproducible from the seed.
    public func renders(checkpoint: () throws -> Void = {}) throws -> [[GrayImage?]] {
        let (poses, seen) = try boardPoses()
        var random = SeededRandom(seed: seed ^ 0x5EED)
        let renderer = SceneRenderer()
        return try cameras.indices.map { c in
            try poses.indices.map { v -> GrayImage? in
                let sceneSeed = random.next()
                guard seen[v][c] else { return nil }
                try checkpoint()
                var d = Degradations()
                d.noise = noise
                d.blur = blur
                let scene = Scene(camera: cameras[c], width: cameras[c].imageWidth, height: cameras[c].imageHeight,
                                  targets: [Target(pattern: charuco.map { .charuco($0) } ?? .checkerboard(board), pose: RigMath.compose(poses[v], then: extrinsics[c]))],
                                  degradations: d, seed: sceneSeed)
                return try renderer.render(scene)
            }
        }
    }
}

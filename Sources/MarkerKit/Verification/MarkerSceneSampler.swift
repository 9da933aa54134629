import CVBridge
import Foundation

/// Random single-marker scenes over the conditions that matter: marker size in the image (log-uniform
/// 8 to 400 px), tilt (0 to 75 degrees, any direction), in-plane rotation, position, lighting, noise,
/// blur, JPEG and background. The same seed gives the same scenes.
public struct MarkerSceneSampler {
    public let camera: CameraCalibration
    public let width: Int
    public let height: Int
    /// Physical side of the sampled markers (mm).
    public let side = 50.0
    public var sizeRange: ClosedRange<Double> = 8...400
    public var tiltRange: ClosedRange<Double> = 0...75
    public var noiseLevels: [Double] = [0, 0, 1, 2, 4, 8]
    /// No noise, blur or JPEG: what the corner stage can do by itself.
    public var clean = false
    /// The markers' dictionary.
    public let dictionary: MarkerDictionary
    private var random: SeededRandom
    private let usableIDs: [Int]

    public init(camera: CameraCalibration, width: Int, height: Int, seed: UInt64, dictionary: MarkerDictionary = .arucoOriginal) {
        self.camera = camera
        self.width = width
        self.height = height
        self.dictionary = dictionary
        random = SeededRandom(seed: seed)
        usableIDs = dictionary.usableIDs
    }

    /// What was asked of a sampled scene, for the breakdowns.
    public struct Sample: Sendable {
        public let scene: Scene
        public let truth: SceneTruth.Marker
        public let tiltDegrees: Double
        public let noise: Double
    }

    /// A marker pose: centre seen at pixel `at`, `depth` mm away, facing the camera along the line of
    /// sight, turned `spin` in its plane, then tilted by `tiltDegrees` about an axis across the line of
    /// sight (direction `tiltAxis`), so the tilt is the angle between its normal and the line of sight.
    public static func pose(camera: CameraCalibration, at pixel: (Double, Double), depth: Double, tiltDegrees tilt: Double,
                            tiltAxis axis: Double, spin: Double) throws -> Pose3D {
        var ray = [0.0, 0.0]
        try Bridge.check(cvb_undistort_points([pixel.0, pixel.1], 1, camera.cameraMatrix, camera.distortion, Int32(camera.distortion.count),
                                              camera.bridgeModel, &ray))
        let spun = Pose3D.compose([0, 0, spin], then: [Double.pi, 0, 0])
        let norm = (ray[0] * ray[0] + ray[1] * ray[1] + 1).squareRoot()
        let direction = [ray[0] / norm, ray[1] / norm, 1 / norm]
        let turnAngle = acos(direction[2])
        let turnAxis = [-direction[1], direction[0], 0.0] // z x direction
        let axisLength = (turnAxis[0] * turnAxis[0] + turnAxis[1] * turnAxis[1]).squareRoot()
        let turn = axisLength > 1e-12 ? turnAxis.map { $0 / axisLength * turnAngle } : [0, 0, 0]
        let facing = Pose3D.compose(spun, then: turn)
        let across = Pose3D(rvec: turn, tvec: [0, 0, 0]).rotation
        let local = [cos(axis), sin(axis), 0.0]
        let tiltAxis = (0..<3).map { i in across[3 * i] * local[0] + across[3 * i + 1] * local[1] + across[3 * i + 2] * local[2] }
        let tilted = Pose3D.compose(facing, then: tiltAxis.map { $0 * tilt * Double.pi / 180 })
        return Pose3D(rvec: tilted, tvec: [ray[0] * depth, ray[1] * depth, depth])
    }

    public mutating func next() throws -> Sample {
        for _ in 0..<200 {
            let pixels = exp(random.uniform(log(sizeRange.lowerBound)...log(sizeRange.upperBound)))
            let tilt = random.uniform(tiltRange)
            let axis = random.uniform(0...(2 * Double.pi))
            let spin = random.uniform(0...(2 * Double.pi))
            // Depth for that size: a tilted square looks smaller, so size is taken face-on.
            let depth = camera.fx * side / pixels
            let margin = pixels * 0.8 + 4
            guard Double(width) > 2 * margin, Double(height) > 2 * margin else { continue }
            let px = random.uniform(margin...(Double(width) - margin)), py = random.uniform(margin...(Double(height) - margin))
            let pose = try Self.pose(camera: camera, at: (px, py), depth: depth, tiltDegrees: tilt, tiltAxis: axis, spin: spin)
            var d = Degradations()
            d.black = random.uniform(10...80)
            d.white = random.uniform(150...250)
            d.background = random.uniform(40...200)
            d.gradient = random.uniform(0...0.5)
            d.gradientAngle = random.uniform(0...360)
            d.noise = noiseLevels[Int(random.uniform(0...(Double(noiseLevels.count) - 0.001)))]
            d.blur = random.unit() < 0.3 ? 0 : random.uniform(0.3...1.5)
            d.jpegQuality = random.unit() < 0.3 ? Int(random.uniform(60...95)) : nil
            if clean { (d.noise, d.blur, d.jpegQuality) = (0, 0, nil) }
            d.texturedBackground = random.unit() < 0.5
            // IDs whose orientation cannot be trusted (1023, and pairs one cell apart when turned) are left
            // out, as sheets leave them out: with them a correct detector reports wrong IDs and corners.
            let id = usableIDs[Int(random.uniform(0...(Double(usableIDs.count) - 0.001)))]
            let scene = Scene(camera: camera, width: width, height: height,
                              targets: [Target(pattern: .marker(id: id, side: side, margin: side / 7 * 1.5, dictionary: dictionary.id), pose: pose)],
                              degradations: d, seed: random.next())
            guard let truth = try SceneTruth.markers(of: scene).first else { continue }
            // The marker and its quiet zone inside the image.
            let inside = truth.corners.allSatisfy { $0.x > 3 && $0.y > 3 && $0.x < Double(width) - 4 && $0.y < Double(height) - 4 }
            guard inside, truth.sidePixels >= 6 else { continue }
            return Sample(scene: scene, truth: truth, tiltDegrees: tilt, noise: d.noise)
        }
        throw MarkerKitError.invalidArgument("no scene fits a \(width)x\(height) image: use a larger image")
    }
}

import CVBridge
import Foundation

/// Renders checkerboard views with known intrinsics and distortion, calibrates them with MarkerKit's
/// pipeline and with OpenCV's sample pipeline, and compares each intrinsic with the truth. With a
/// ChArUco board it also renders as many views of that board, each leaving part of the board outside the
/// image (as a chessboard may not), and calibrates from them on the same camera. Each result is also
/// measured where calibrations are weakest: how far apart the true camera and the estimate project the
/// rays that land near the image's edges.
public struct CalibrationVerification {
    public let camera: CameraCalibration
    public let width: Int
    public let height: Int
    public let views: Int
    public let seed: UInt64
    public var noise: Double = 0
    public var blur: Double = 0
    public let board: Checkerboard
    /// A ChArUco board to compare with, its views leaving the image.
    public var charuco: CharucoBoard?

    public init(camera: CameraCalibration, width: Int, height: Int, views: Int, seed: UInt64) throws {
        // One view is a scene (the chessboard finder's tests render one); calibrating needs more, which the
        // calibration says itself.
        try InputRange.check(views, in: 1...RenderLimits.calibrationViews.upperBound, "a view count of")
        self.camera = camera
        self.width = width
        self.height = height
        self.views = views
        self.seed = seed
        board = try Checkerboard(innerColumns: 9, innerRows: 6, square: .mm(30))
    }

    /// One pipeline's result against the truth.
    public struct PipelineResult: Codable, Sendable {
        public let pipeline: String
        public let viewsUsed: Int
        public let rms: Double
        /// fx, fy, cx, cy: estimate, truth, relative error in percent.
        public let intrinsics: [String: [Double]]
        public let distortion: [Double]
        public let worstRelativeError: Double
        /// Projection difference from the true camera (px): RMS over rays landing within 5% of the image's
        /// edges and over the whole image, and the worst edge ray.
        public var edgeRMS: Double? = nil
        public var imageRMS: Double? = nil
        public var worstEdge: Double? = nil
    }

    public struct Summary: Codable, Sendable {
        public let views: Int
        public let seed: UInt64
        public let width: Int
        public let height: Int
        public let truth: [Double]
        public let truthDistortion: [Double]
        public let noise: Double
        public let blur: Double
        public let pipelines: [PipelineResult]
        /// With a ChArUco board: its corners on the same renders, MarkerKit beside OpenCV.
        public var charucoCorners: CharucoCornerAccuracy? = nil
        /// With several seeds: whether MarkerKit's projection uncertainty predicts its true error.
        public var uncertainty: UncertaintyCheck? = nil

        public var table: String {
            var lines = ["\(views) rendered views \(width)x\(height), seed \(seed), noise \(noise), blur \(blur); truth fx \(truth[0]) fy \(truth[4]) cx \(truth[2]) cy \(truth[5])", ""]
            lines.append("pipeline                                  views   RMS px    fx err%    fy err%    cx err%    cy err%   edge px  image px")
            for p in pipelines {
                let errors = ["fx", "fy", "cx", "cy"].map { String(format: "%+9.4f", p.intrinsics[$0]?[2] ?? .nan) }.joined(separator: "  ")
                lines.append(p.pipeline.padding(toLength: 40, withPad: " ", startingAt: 0) + String(format: "%6d  %7.4f  ", p.viewsUsed, p.rms) + errors
                             + String(format: "  %8.4f  %8.4f", p.edgeRMS ?? .nan, p.imageRMS ?? .nan))
            }
            lines.append("")
            lines.append("edge px: RMS distance between where the true camera and the estimate project the same ray, over rays landing within 5% of the image's edges; image px: over the whole image")
            if let charucoCorners { lines += ["", charucoCorners.table] }
            if let uncertainty { lines += ["", uncertainty.line] }
            return lines.joined(separator: "\n")
        }
    }

    /// The rendered views (scene and image), reproducible from the seed.
    public func renderViews(checkpoint: () throws -> Void = {}) throws -> [(scene: Scene, image: GrayImage)] {
        let renderer = SceneRenderer()
        return try viewScenes().map { scene in
            try checkpoint()
            return (scene, try renderer.render(scene))
        }
    }

    /// The views as scenes: the board placed as a careful user holds it, whole in the image.
    public func viewScenes() throws -> [Scene] {
        var random = SeededRandom(seed: seed)
        var out: [Scene] = []
        let s = board.square.millimetres
        let centre = (Double(board.innerColumns - 1) * s / 2, Double(board.innerRows - 1) * s / 2)
        var attempts = 0
        while out.count < views {
            attempts += 1
            guard attempts < views * 200 else { throw MarkerKitError.invalidArgument("cannot place \(views) board views in a \(width)x\(height) image") }
            let fill = random.uniform(0.35...0.75)
            let depth = camera.fx * Double(board.squareColumns) * s / (fill * Double(width))
            // Views as a careful user takes them: tilts spread evenly from 10 to 45 degrees, in directions
            // spread around the circle (golden angle), jittered by the seed.
            let k = Double(out.count)
            let tilt = (10 + 35 * k / Double(max(views - 1, 1)) + random.uniform(-2...2)) * Double.pi / 180
            let axis = k * 2.399963 + random.uniform(-0.2...0.2)
            let spin = random.uniform(-0.3...0.3)
            let ox = random.uniform(-0.3...0.3) * depth * Double(width) / camera.fx, oy = random.uniform(-0.3...0.3) * depth * Double(height) / camera.fy
            let pose = Pose3D.held(centre: centre, at: (ox, oy, depth), tilt: tilt, axis: axis, spin: spin)
            var d = Degradations()
            d.noise = noise
            d.blur = blur
            let scene = Scene(camera: camera, width: width, height: height, targets: [Target(pattern: .checkerboard(board), pose: pose)],
                              degradations: d, seed: random.next())
            // The whole board with its white border inside the image.
            let outline = try SceneTruth.project([(-2 * s, -2 * s, 0), (Double(board.innerColumns + 1) * s, -2 * s, 0),
                                                  (Double(board.innerColumns + 1) * s, Double(board.innerRows + 1) * s, 0),
                                                  (-2 * s, Double(board.innerRows + 1) * s, 0)], pose: scene.targets[0].pose, camera: camera)
            guard outline.allSatisfy({ $0.x > 2 && $0.y > 2 && $0.x < Double(width) - 3 && $0.y < Double(height) - 3 }) else { continue }
            out.append(scene)
        }
        return out
    }

    /// A video of a hand moving the board from view to view: each view held still for `hold` frames,
    /// `move` frames of motion in between, at `fps`. Written to `url` (MJPEG AVI).
    public func renderClip(to url: URL, hold: Int, move: Int, fps: Double) throws {
        let writer = try VideoFileWriter(url: url, width: width, height: height, framesPerSecond: fps)
        try renderClip(hold: hold, move: move) { gray, repeats in
            let frame = Frame(width: width, height: height, stride: 3 * width, format: .bgr8, bytes: gray.pixels.flatMap { [$0, $0, $0] })
            for _ in 0..<repeats { try writer.write(frame) }
        }
        try writer.finish()
    }

    /// The clip's frames in order, each rendered once and handed to `frame` with how many frames in a row
    /// show it (`hold` for a held view, 1 for a frame of motion).
    public func renderClip(hold: Int, move: Int, frame: (GrayImage, Int) throws -> Void) throws {
        let scenes = try charuco == nil ? viewScenes() : charucoScenes()
        let renderer = SceneRenderer()
        for (index, scene) in scenes.enumerated() {
            try frame(try renderer.render(scene), hold)
            guard index + 1 < scenes.count else { break }
            let a = scene.targets[0].pose, b = scenes[index + 1].targets[0].pose
            for step in 1...max(move, 1) {
                let f = Double(step) / Double(move + 1)
                var moving = scene
                moving.targets[0].pose = Pose3D(rvec: zip(a.rvec, b.rvec).map { $0 + ($1 - $0) * f },
                                                tvec: zip(a.tvec, b.tvec).map { $0 + ($1 - $0) * f })
                try frame(try renderer.render(moving), 1)
            }
        }
    }

    /// The ChArUco board's views (each leaving part of the board outside the image), reproducible from the seed.
    public func charucoScenes() throws -> [Scene] {
        guard let charuco else { return [] }
        var views = CharucoViews(board: charuco, camera: camera, width: width, height: height, partial: true)
        views.degradations.noise = noise
        views.degradations.blur = blur
        return try views.scenes(count: self.views, seed: seed)
    }

    /// `checkpoint` is called between renders and pipelines and may throw to stop the run (Ctrl-C).
    public func run(checkpoint: () throws -> Void = {}) throws -> Summary {
        let rendered = try renderViews(checkpoint: checkpoint)
        let images = rendered.enumerated().map { (name: String(format: "view_%03d", $0.offset), image: $0.element.image) }
        var pipelines: [(String, Calibrator)] = []
        var ours = Calibrator(board: board)
        pipelines.append(("markerkit (classic, auto window)", ours))
        ours.detector = .sectorBased
        pipelines.append(("markerkit with findChessboardCornersSB", ours))
        var plain = Calibrator(board: board)
        plain.halfWindow = 11
        plain.fitsCorners = false
        plain.outlierFactor = .infinity
        plain.maxFocalUncertainty = .infinity
        pipelines.append(("OpenCV sample (cornerSubPix 11)", plain))
        let truth = camera
        var inputs = pipelines.map { (name: $0.0, calibrator: $0.1, images: images) }
        var cornerAccuracy: CharucoCornerAccuracy?
        if let charuco {
            try checkpoint()
            let renderer = SceneRenderer()
            let scenes = try charucoScenes()
            let renders = try scenes.enumerated().map {
                try checkpoint()
                return (name: String(format: "charuco_%03d", $0.offset), image: try renderer.render($0.element))
            }
            inputs.append(("markerkit ChArUco (views leave image)", Calibrator(target: .charuco(charuco)), renders))
            let truths = try scenes.map { try SceneTruth.charucoCorners(of: $0)[0] }
            cornerAccuracy = try CharucoCornerAccuracy.measure(board: charuco, camera: camera,
                                                               renders: zip(renders, truths).map { ($0.image, $1) })
        }
        let results = try inputs.map { name, calibrator, images -> PipelineResult in
            try checkpoint()
            let (views, w, h) = calibrator.findBoards(in: images)
            let c = try calibrator.calibrate(views: views, width: w, height: h, name: "verify").calibration
            var intrinsics: [String: [Double]] = [:]
            for (key, estimate, real) in [("fx", c.fx, truth.fx), ("fy", c.fy, truth.fy), ("cx", c.cx, truth.cx), ("cy", c.cy, truth.cy)] {
                intrinsics[key] = [estimate, real, 100 * (estimate - real) / real]
            }
            var result = PipelineResult(pipeline: name, viewsUsed: c.provenance?.views ?? 0, rms: c.provenance?.rms ?? .nan,
                                        intrinsics: intrinsics, distortion: c.distortion,
                                        worstRelativeError: intrinsics.values.map { abs($0[2]) }.max() ?? .nan)
            let (edge, whole) = try Self.projectionDifferences(c, truth: truth, width: width, height: height)
            result.edgeRMS = Self.rms(edge)
            result.worstEdge = edge.max()
            result.imageRMS = Self.rms(whole)
            return result
        }
        var summary = Summary(views: views, seed: seed, width: width, height: height, truth: truth.cameraMatrix,
                              truthDistortion: truth.distortion, noise: noise, blur: blur, pipelines: results)
        summary.charucoCorners = cornerAccuracy
        return summary
    }

    /// Rays on a fine grid over the true lens's one-to-one range, each projected through the true camera
    /// and through the estimate: the distances (px) for the rays the truth puts within 5% of the image's
    /// edges, and for all that land in the image. (Rays, not pixels taken back through the lens: OpenCV's
    /// undistortPoints does not converge near the corners of a strong lens.)
    static func projectionDifferences(_ estimate: CameraCalibration, truth: CameraCalibration, width: Int, height: Int) throws
        -> (edge: [Double], image: [Double]) {
        let range = try SceneRenderer.lensRange(truth), steps = 160
        var rays: [(Double, Double, Double)] = []
        for j in 0...steps {
            for i in 0...steps {
                let x: Double = range * (2 * Double(i) / Double(steps) - 1), y: Double = range * (2 * Double(j) / Double(steps) - 1)
                if (x * x + y * y).squareRoot() < range { rays.append((x, y, 1)) }
            }
        }
        let origin = Pose3D(rvec: [0, 0, 0], tvec: [0, 0, 0])
        let real = try SceneTruth.project(rays, pose: origin, camera: truth), estimated = try SceneTruth.project(rays, pose: origin, camera: estimate)
        var edge: [Double] = [], image: [Double] = []
        let w = Double(width), h = Double(height)
        for (p, q) in zip(real, estimated) where p.x >= -0.5 && p.y >= -0.5 && p.x <= w - 0.5 && p.y <= h - 0.5 {
            let d = p.distance(to: q)
            image.append(d)
            if p.x < 0.05 * w || p.x > 0.95 * w || p.y < 0.05 * h || p.y > 0.95 * h { edge.append(d) }
        }
        return (edge, image)
    }

    static func rms(_ values: [Double]) -> Double { (values.map { $0 * $0 }.reduce(0, +) / Double(max(values.count, 1))).squareRoot() }
}

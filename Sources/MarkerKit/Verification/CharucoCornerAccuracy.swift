import Foundation

/// Board-corner accuracy on ChArUco renders with exact truth: MarkerKit's corners beside OpenCV 4.6's
/// `interpolateCornersCharuco`, without and with the true camera matrix, on the same images. OpenCV's
/// corners are measured as it returns them and with its half-pixel offset (opencv#25539) taken off.
public struct CharucoCornerAccuracy: Codable, Sendable {
    public struct Row: Codable, Sendable {
        public let pipeline: String
        /// Corners within 1 px of a true corner of the same ID, of the truth's corners in the images.
        public let found: Int
        public let truth: Int
        /// Corners reported with no true corner of that ID within 1 px.
        public let wrong: Int
        public let rmse: Double
        public let worst: Double
    }

    public let rows: [Row]

    /// Measures each pipeline on `renders` (image and truth).
    public static func measure(board: CharucoBoard, camera: CameraCalibration,
                               renders: [(image: GrayImage, truth: SceneTruth.CharucoCorners)]) throws -> CharucoCornerAccuracy {
        let withCamera = camera.model == .fisheye ? nil : try OpenCVCharucoDetector(board: board, camera: camera)
        var pipelines: [(String, (GrayImage) throws -> [CharucoDetection.Corner], Double)] = [
            ("markerkit", { try CharucoDetector(board: board).detect(in: $0).corners }, 0),
        ]
        if !board.legacy {
            let plain = try OpenCVCharucoDetector(board: board)
            pipelines += [("opencv", plain.detect, 0), ("opencv, less 0.5 px", plain.detect, 0.5)]
            if let withCamera {
                pipelines += [("opencv + camera", withCamera.detect, 0), ("opencv + camera, less 0.5 px", withCamera.detect, 0.5)]
            }
        }
        var rows: [Row] = []
        var cache: [String: [[CharucoDetection.Corner]]] = [:]
        for (name, detect, shift) in pipelines {
            let key = name.replacingOccurrences(of: ", less 0.5 px", with: "")
            let results = try cache[key] ?? renders.map { try detect($0.image) }
            cache[key] = results
            var found = 0, total = 0, wrong = 0, squares = 0.0, worst = 0.0
            for (corners, render) in zip(results, renders) {
                var byID: [Int: Point2] = [:]
                for (i, id) in render.truth.ids.enumerated() { byID[id] = render.truth.corners[i] }
                total += render.truth.ids.count
                for c in corners {
                    let p = Point2(x: c.point.x - shift, y: c.point.y - shift)
                    guard let t = byID[c.id], p.distance(to: t) <= 1 else { wrong += 1; continue }
                    let e = p.distance(to: t)
                    found += 1
                    squares += e * e
                    worst = max(worst, e)
                }
            }
            rows.append(Row(pipeline: name, found: found, truth: total, wrong: wrong, rmse: (squares / Double(max(found, 1))).squareRoot(), worst: worst))
        }
        return CharucoCornerAccuracy(rows: rows)
    }

    public var table: String {
        var lines = ["board corners on the ChArUco renders        found / truth   wrong   RMSE px   worst px"]
        for r in rows {
            lines.append(r.pipeline.padding(toLength: 42, withPad: " ", startingAt: 0)
                         + String(format: "%7d / %-5d %7d   %7.4f   %8.4f", r.found, r.truth, r.wrong, r.rmse, r.worst))
        }
        return lines.joined(separator: "\n")
    }
}

extension CharucoCornerAccuracy {
    /// `verify board` on sampled renders: `count` views of `board` through `camera`
    /// (`CharucoSceneSampler`), with the noise, blur and bend given. `checkpoint` runs between renders.
    public static func sampled(board: CharucoBoard, camera: CameraCalibration, count: Int, seed: UInt64, noise: Double = 0, blur: Double = 0,
                               sag: Double = 0, checkpoint: () throws -> Void = {}) throws -> CharucoCornerAccuracy {
        try InputRange.check(count, in: RenderLimits.boardRenders, "a render count of")
        try RenderLimits.checkDegradations(noise: noise, blur: blur)
        var sampler = CharucoSceneSampler(board: board, camera: camera, seed: seed)
        sampler.views.sag = sag
        let renderer = SceneRenderer()
        var renders: [(image: GrayImage, truth: SceneTruth.CharucoCorners)] = []
        for _ in 0..<count {
            try checkpoint()
            var scene = try sampler.nextScene().scene
            scene.degradations.noise = noise
            scene.degradations.blur = blur
            renders.append((try renderer.render(scene), try SceneTruth.charucoCorners(of: scene)[0]))
        }
        return try measure(board: board, camera: camera, renders: renders)
    }

    /// `verify board --truth`: the board renders of a folder `markerkit render --board` wrote, against its
    /// truth.json.
    public static func measure(truth: RenderTruthFile, folder: URL, checkpoint: () throws -> Void = {}) throws -> CharucoCornerAccuracy {
        guard let spec = truth.board else {
            throw MarkerKitError.advised(.badInput("the truth file holds no board"), .renderBoard)
        }
        let board = try spec.charucoBoard(), camera = try truth.calibration()
        let renders = try truth.scenes.map { scene -> (image: GrayImage, truth: SceneTruth.CharucoCorners) in
            try checkpoint()
            guard let corners = scene.boardCorners else { throw MarkerKitError.badInput("'\(scene.file)' has no board corners in the truth file") }
            let image = try GrayImage(contentsOf: folder.appendingPathComponent(scene.file))
            guard image.width == camera.imageWidth, image.height == camera.imageHeight else {
                throw MarkerKitError.badInput("'\(scene.file)' is \(image.width)x\(image.height), the truth's camera \(camera.imageWidth)x\(camera.imageHeight)")
            }
            return (image, SceneTruth.CharucoCorners(ids: corners.ids, corners: corners.corners.map { Point2(x: $0[0], y: $0[1]) }))
        }
        return try measure(board: board, camera: camera, renders: renders)
    }
}

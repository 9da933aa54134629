import Foundation

/// `truth.json` beside rendered images: the camera and, per image, every marker's ID, corners and pose;
/// for renders of a ChArUco board also the board and, per image, its corners in view.
public struct RenderTruthFile: FormattedJSONFile, Sendable {
    public struct Camera: Codable, Sendable {
        public let name: String
        public let model: String
        public let imageWidth: Int
        public let imageHeight: Int
        public let cameraMatrix: [Double]
        public let distortionCoefficients: [Double]
    }
    public struct Marker: Codable, Sendable {
        public let id: Int
        public let corners: [[Double]]
        public let side: Double
        public let rvec: [Double]
        public let tvec: [Double]
        /// What is printed beside it and how close (paper from its black border, in its cells), when the
        /// render put print there.
        public var beside: NearbyPrint? = nil
        public var quietZone: Double? = nil
    }
    public struct SceneEntry: Codable, Sendable {
        public let file: String
        public let markers: [Marker]
        public let degradations: Degradations
        /// The camera of this image when the images of the folder differ (phone renders in portrait and
        /// landscape); else the file's.
        public var camera: Camera? = nil
        /// ChArUco renders: the board's corners in view (OpenCV's corner IDs, pixel positions), and how far
        /// the board was bent (mm off the chord between its sides; absent when flat).
        public var boardCorners: BoardCorners? = nil
        public var boardSag: Double? = nil
    }
    public struct BoardCorners: Codable, Sendable {
        public let ids: [Int]
        public let corners: [[Double]]
    }

    public var format = RenderTruthFile.formatName
    public var units = "mm"
    public var pixelConvention = "integer coordinates at pixel centres (OpenCV); corners TL, TR, BR, BL of the marker as printed"
    /// The markers' dictionary (OpenCV's name); files written before it was recorded hold
    /// DICT_ARUCO_ORIGINAL markers.
    public var dictionary: String? = MarkerDictionary.Name.arucoOriginal.rawValue
    public let camera: Camera
    /// The ChArUco board of board renders.
    public var board: BoardSpec? = nil
    public var scenes: [SceneEntry]
    public var generator = MarkerKitVersion.generator

    public init(camera c: CameraCalibration, scenes: [SceneEntry], dictionary: MarkerDictionary = .arucoOriginal) {
        self.dictionary = dictionary.name
        camera = Camera(c)
        self.scenes = scenes
    }

    /// A scene's entry; with `camera`, the scene's camera is written in it; with `sampled`, what is
    /// printed beside each marker.
    public static func entry(file: String, scene: Scene, sampled: SampledScene? = nil, camera: Bool = false) throws -> SceneEntry {
        // A ChArUco board's markers are the ones wholly in view (the sampler's); markers on their own are all.
        let board = scene.targets.first.flatMap { target -> Target? in if case .charuco = target.pattern { return target } else { return nil } }
        let truths = try board == nil ? SceneTruth.markers(of: scene) : SceneTruth.charucoMarkers(of: scene)
        var entry = SceneEntry(file: file, markers: truths.enumerated().map { k, truth in
            var marker = Marker(truth)
            if let sampled, board == nil, k < sampled.markers.count {
                (marker.beside, marker.quietZone) = (sampled.markers[k].beside, sampled.markers[k].quietZone)
            }
            return marker
        }, degradations: scene.degradations)
        if camera { entry.camera = Camera(scene.camera) }
        if let board {
            let truth = try SceneTruth.charucoCorners(of: scene)[0]
            entry.boardCorners = BoardCorners(ids: truth.ids, corners: truth.corners.map { [$0.x, $0.y] })
            if board.curvature != 0 {
                let e = PatternAlbedo(board.pattern).extent
                entry.boardSag = board.surfacePoint(e.minU, 0).2 - board.surfacePoint((e.minU + e.maxU) / 2, 0).2
            }
        }
        return entry
    }

    public func encoded() throws -> Data { try JSONFile.encode(self) }

    public static let fileKind = "render truth"
    public static let formatName = "markerkit-render-truth"

    /// A truth file from its bytes (the truth.json of a folder `markerkit render` wrote), every value
    /// checked; `source` names the file in errors.
    public static func decode(_ data: Data, source: String) throws -> RenderTruthFile {
        let file = try decodeFormatted(data, source: source)
        func bad(_ problem: String) -> MarkerKitError { .badInput("render truth '\(source)': \(problem)") }
        guard file.units == "mm" else { throw bad("units '\(file.units)', expected 'mm'") }
        guard let dictionary = file.dictionary.map({ MarkerDictionary.Name(parsing: $0) }) ?? .arucoOriginal else {
            throw bad("unknown dictionary '\(file.dictionary ?? "")'")
        }
        let count = MarkerDictionary.named(dictionary).count
        let board = try file.board.map { spec -> CharucoBoard in
            do { return try spec.charucoBoard() } catch let error as MarkerKitError { throw bad("board: \(error.description)") }
        }
        do { _ = try file.calibration() } catch let error as MarkerKitError { throw bad("camera: \(error.description)") }
        for scene in file.scenes {
            do { _ = try file.calibration(of: scene) } catch let error as MarkerKitError { throw bad("\(scene.file): camera: \(error.description)") }
            let parts = scene.file.split(separator: "/")
            guard !scene.file.isEmpty, !scene.file.hasPrefix("/"), !parts.contains("..") else {
                throw bad("image '\(scene.file)' is not a file inside the folder")
            }
            let d = scene.degradations
            guard [d.noise, d.blur].allSatisfy({ $0.isFinite && $0 >= 0 }) else { throw bad("\(scene.file): noise and blur must be finite and not negative") }
            guard d.vignetting.isFinite, (0..<1).contains(d.vignetting), d.motionBlur.isFinite, (0...1000).contains(d.motionBlur),
                  d.motionBlurAngle.isFinite, d.shadows.allSatisfy(\.isValid), d.sensorNoise?.isValid ?? true else {
                throw bad("\(scene.file): vignetting must be 0 to below 1, motion blur 0-1000 px at a finite angle, shadows polygons of 3 points or more with darkness 0-1, sensor noise positive electrons")
            }
            if let corners = scene.boardCorners {
                guard let board else { throw bad("\(scene.file): board corners without a board") }
                guard corners.ids.count == corners.corners.count, Set(corners.ids).count == corners.ids.count,
                      corners.ids.allSatisfy({ (0..<board.corners.count).contains($0) }),
                      corners.corners.allSatisfy({ $0.count == 2 && $0.allSatisfy(\.isFinite) }) else {
                    throw bad("\(scene.file): board corners need distinct IDs 0-\(board.corners.count - 1), each with one finite (x, y)")
                }
            }
            for m in scene.markers {
                guard (0..<count).contains(m.id) else { throw bad("\(scene.file): marker ID \(m.id) is outside 0-\(count - 1) of \(dictionary.rawValue)") }
                guard m.corners.count == 4, m.corners.allSatisfy({ $0.count == 2 && $0.allSatisfy(\.isFinite) }),
                      m.rvec.count == 3, m.tvec.count == 3, (m.rvec + m.tvec).allSatisfy(\.isFinite), m.side.isFinite, m.side > 0 else {
                    throw bad("\(scene.file): marker \(m.id) needs 4 corners (x, y), rvec and tvec of 3 numbers and a positive side, all finite")
                }
            }
        }
        return file
    }

    /// The dictionary of the markers in the scenes.
    public var markerDictionary: MarkerDictionary {
        MarkerDictionary.named(dictionary.flatMap { MarkerDictionary.Name(parsing: $0) } ?? .arucoOriginal)
    }

    /// The camera the scenes were rendered through (those without a camera of their own).
    public func calibration() throws -> CameraCalibration { try camera.calibration() }

    /// The camera `scene` was rendered through.
    public func calibration(of scene: SceneEntry) throws -> CameraCalibration { try (scene.camera ?? camera).calibration() }
}

extension RenderTruthFile.Camera {
    init(_ c: CameraCalibration) {
        self.init(name: c.name, model: c.model.rawValue, imageWidth: c.imageWidth, imageHeight: c.imageHeight,
                  cameraMatrix: c.cameraMatrix, distortionCoefficients: c.distortion)
    }

    func calibration() throws -> CameraCalibration {
        guard let model = CameraCalibration.Model(rawValue: model) else { throw MarkerKitError.badInput("unknown model '\(model)'") }
        return try CameraCalibration(name: name, model: model, cameraMatrix: cameraMatrix, distortion: distortionCoefficients,
                                     imageWidth: imageWidth, imageHeight: imageHeight)
    }
}

extension RenderTruthFile.Marker {
    init(_ truth: SceneTruth.Marker) {
        self.init(id: truth.id, corners: truth.corners.map { [$0.x, $0.y] }, side: truth.side, rvec: truth.pose.rvec, tvec: truth.pose.tvec)
    }

    /// As the verification scores it.
    public var sceneTruth: SceneTruth.Marker {
        SceneTruth.Marker(id: id, corners: corners.map { Point2(x: $0[0], y: $0[1]) }, pose: Pose3D(rvec: rvec, tvec: tvec), side: side)
    }

    /// Angle between the marker's normal and the camera's axis, degrees.
    public var tiltDegrees: Double { acos(min(1, abs(Pose3D(rvec: rvec, tvec: tvec).rotation[8]))) * 180 / Double.pi }
}

import Foundation

/// Views of a ChArUco board as a user calibrating a camera takes them, reproducible from a seed: tilts
/// spread from 10 to 50 degrees in directions around the circle, the board filling from half the image
/// to more than all of it. With `partial` every view leaves part of the board outside the image (never
/// the whole board in view: what a plain chessboard cannot use) while still showing at least
/// `minimumCorners` of its corners; without it the whole board with a margin is in every view.
public struct CharucoViews {
    public let board: CharucoBoard
    public let camera: CameraCalibration
    public let width: Int
    public let height: Int
    public var partial: Bool
    public var minimumCorners = 12
    public var degradations = Degradations()
    /// A board not glued flat: its middle this many mm off the chord between its left and right sides
    /// (`Target.bent(sag:)`); 0 flat.
    public var sag = 0.0

    public init(board: CharucoBoard, camera: CameraCalibration, width: Int, height: Int, partial: Bool) {
        self.board = board
        self.camera = camera
        self.width = width
        self.height = height
        self.partial = partial
    }

    public func scenes(count: Int, seed: UInt64) throws -> [Scene] {
        var random = SeededRandom(seed: seed)
        var out: [Scene] = []
        var attempts = 0
        while out.count < count {
            attempts += 1
            guard attempts < count * 400 else {
                throw MarkerKitError.invalidArgument("cannot place \(count) views of a \(board.squaresX)x\(board.squaresY) board in a \(width)x\(height) image")
            }
            let k = Double(out.count)
            let fill = Self.fill(partial: partial, random: &random)
            let tilt = (10 + 40 * k / Double(max(count - 1, 1)) + random.uniform(-2...2)) * Double.pi / 180
            let axis = k * 2.399963 + random.uniform(-0.2...0.2)
            if let scene = try view(fill: fill, tilt: tilt, axis: axis, partial: partial, random: &random) { out.append(scene) }
        }
        return out
    }

    /// How much of the image the board spans: more than all of it when it is to leave the image.
    static func fill(partial: Bool, random: inout SeededRandom) -> Double {
        partial ? random.uniform(0.7...1.5) : random.uniform(0.4...0.75)
    }

    /// One view with the board spanning `fill` of the image, tilted `tilt` about the axis at angle `axis`
    /// (radians), turned and placed at random; nil when it does not show what `partial` asks.
    func view(fill: Double, tilt: Double, axis: Double, partial: Bool, random: inout SeededRandom) throws -> Scene? {
        let bw = board.width.millimetres, bh = board.height.millimetres
        let depth = camera.fx * max(bw / Double(width), bh / Double(height)) / fill
        let spin = random.uniform(-0.4...0.4)
        let reach = partial ? 0.55 : 0.3
        let ox = random.uniform(-reach...reach) * depth * Double(width) / camera.fx
        let oy = random.uniform(-reach...reach) * depth * Double(height) / camera.fy
        var target = Target(pattern: .charuco(board), pose: .held(centre: (bw / 2, bh / 2), at: (ox, oy, depth), tilt: tilt, axis: axis, spin: spin))
        if sag != 0 { target = target.bent(sag: sag) }
        let scene = Scene(camera: camera, width: width, height: height, targets: [target], degradations: degradations, seed: random.next())
        let visible = try SceneTruth.charucoCorners(of: scene, margin: 3)[0]
        if partial {
            guard visible.ids.count >= minimumCorners, visible.ids.count < board.corners.count else { return nil }
        } else {
            let outline = [(-0.05, -0.05), (1.05, -0.05), (1.05, 1.05), (-0.05, 1.05)].map { target.surfacePoint($0.0 * bw, $0.1 * bh) }
            guard try SceneTruth.project(outline, pose: target.pose, camera: camera)
                .allSatisfy({ $0.x > 2 && $0.y > 2 && $0.x < Double(width) - 3 && $0.y < Double(height) - 3 }) else { return nil }
        }
        return scene
    }
}

/// Random views of a ChArUco board for `markerkit render --board` and `verify board`: whole in the image
/// or leaving it (half of each), tilted 0 to 60 degrees in any direction, under random lighting, optionally
/// bent; each view's truth is the board's corners and the markers wholly in view. The same seed gives the
/// same scenes.
public struct CharucoSceneSampler: SceneSampler {
    public var views: CharucoViews
    public var tiltRange: ClosedRange<Double> = 0...60
    /// Share of the views that leave the image.
    public var partialShare = 0.5
    private var random: SeededRandom

    public init(board: CharucoBoard, camera: CameraCalibration, seed: UInt64) {
        views = CharucoViews(board: board, camera: camera, width: camera.imageWidth, height: camera.imageHeight, partial: true)
        views.minimumCorners = 6
        random = SeededRandom(seed: seed)
    }

    public mutating func nextScene() throws -> SampledScene {
        for _ in 0..<400 {
            let partial = random.unit() < partialShare
            let fill = CharucoViews.fill(partial: partial, random: &random)
            let tilt = random.uniform(tiltRange) * Double.pi / 180, axis = random.uniform(0...(2 * Double.pi))
            var d = views.degradations
            d.black = random.uniform(10...60)
            d.white = random.uniform(170...245)
            d.background = random.uniform(40...200)
            d.gradient = random.uniform(0...0.4)
            d.gradientAngle = random.uniform(0...360)
            views.degradations = d
            guard let scene = try views.view(fill: fill, tilt: tilt, axis: axis, partial: partial, random: &random) else { continue }
            let markers = try SceneTruth.charucoMarkers(of: scene).map { marker in
                SampledScene.Marker(truth: marker, tiltDegrees: acos(min(1, abs(marker.pose.rotation[8]))) * 180 / Double.pi)
            }
            return SampledScene(scene: scene, markers: markers)
        }
        throw MarkerKitError.invalidArgument("cannot place a view of a \(views.board.squaresX)x\(views.board.squaresY) board in a \(views.width)x\(views.height) image")
    }
}

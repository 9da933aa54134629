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
        let bw = board.width.millimetres, bh = board.height.millimetres
        var attempts = 0
        while out.count < count {
            attempts += 1
            guard attempts < count * 400 else {
                throw MarkerKitError.invalidArgument("cannot place \(count) views of a \(board.squaresX)x\(board.squaresY) board in a \(width)x\(height) image")
            }
            let k = Double(out.count)
            let fill = partial ? random.uniform(0.7...1.5) : random.uniform(0.4...0.75)
            let depth = camera.fx * max(bw / Double(width), bh / Double(height)) / fill
            let tilt = (10 + 40 * k / Double(max(count - 1, 1)) + random.uniform(-2...2)) * Double.pi / 180
            let axis = k * 2.399963 + random.uniform(-0.2...0.2)
            let spin = random.uniform(-0.4...0.4)
            let rvec = Pose3D.compose([0, 0, spin], then: [cos(axis) * tilt, sin(axis) * tilt, 0])
            let rotation = Pose3D(rvec: rvec, tvec: [0, 0, 0]).rotation
            let reach = partial ? 0.55 : 0.3
            let ox = random.uniform(-reach...reach) * depth * Double(width) / camera.fx
            let oy = random.uniform(-reach...reach) * depth * Double(height) / camera.fy
            let centre = (bw / 2, bh / 2)
            let t = [ox - rotation[0] * centre.0 - rotation[1] * centre.1, oy - rotation[3] * centre.0 - rotation[4] * centre.1,
                     depth - rotation[6] * centre.0 - rotation[7] * centre.1]
            let scene = Scene(camera: camera, width: width, height: height,
                              targets: [Target(pattern: .charuco(board), pose: Pose3D(rvec: rvec, tvec: t))], degradations: degradations,
                              seed: random.next())
            let visible = try SceneTruth.charucoCorners(of: scene, margin: 3)[0]
            if partial {
                guard visible.ids.count >= minimumCorners, visible.ids.count < board.corners.count else { continue }
            } else {
                let outline = try SceneTruth.project([(-bw * 0.05, -bh * 0.05, 0), (bw * 1.05, -bh * 0.05, 0), (bw * 1.05, bh * 1.05, 0),
                                                      (-bw * 0.05, bh * 1.05, 0)], pose: scene.targets[0].pose, camera: camera)
                guard outline.allSatisfy({ $0.x > 2 && $0.y > 2 && $0.x < Double(width) - 3 && $0.y < Double(height) - 3 }) else { continue }
            }
            out.append(scene)
        }
        return out
    }
}

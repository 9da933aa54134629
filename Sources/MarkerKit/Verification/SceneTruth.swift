import CVBridge
import Foundation

/// What a render shows, computed through the same camera model: each marker's ID, corners (in the
/// marker's order TL, TR, BR, BL, OpenCV's pixel convention) and pose; each checkerboard's inner corners.
public enum SceneTruth {
    public struct Marker: Codable, Sendable {
        public let id: Int
        public let corners: [Point2]
        /// The marker's pose in OpenCV's marker frame (mm).
        public let pose: Pose3D
        /// Side of the outer black square, mm.
        public let side: Double
        /// Mean side in the image, pixels.
        public var sidePixels: Double {
            (0..<4).map { corners[$0].distance(to: corners[($0 + 1) % 4]) }.reduce(0, +) / 4
        }
    }

    public static func markers(of scene: Scene) throws -> [Marker] {
        try scene.targets.compactMap { target in
            guard case .marker(let id, let side, _, _) = target.pattern else { return nil }
            let h = side / 2
            let corners = try project([(-h, h, 0), (h, h, 0), (h, -h, 0), (-h, -h, 0)], pose: target.pose, camera: scene.camera)
            return Marker(id: id, corners: corners, pose: target.pose, side: side)
        }
    }

    /// Inner corners of every checkerboard target, row by row as OpenCV orders them.
    public static func chessboardCorners(of scene: Scene) throws -> [[Point2]] {
        try scene.targets.compactMap { target in
            guard case .checkerboard(let board) = target.pattern else { return nil }
            let s = board.square.millimetres
            let points = (0..<board.innerRows).flatMap { r in (0..<board.innerColumns).map { c in (Double(c) * s, Double(r) * s, 0.0) } }
            return try project(points, pose: target.pose, camera: scene.camera)
        }
    }

    /// A ChArUco board's chessboard corners in one render: corner IDs (OpenCV's) and image positions, for
    /// the corners in front of the camera, within the lens's one-to-one range, that project inside the
    /// image at least `margin` pixels from its edge.
    public struct CharucoCorners: Sendable {
        public let ids: [Int]
        public let corners: [Point2]
    }

    /// The corners of every ChArUco target.
    public static func charucoCorners(of scene: Scene, margin: Double = 0) throws -> [CharucoCorners] {
        try scene.targets.compactMap { target in
            guard case .charuco(let board) = target.pattern else { return nil }
            let points = board.corners.map { ($0.x, $0.y, 0.0) }
            let projected = try project(points, pose: target.pose, camera: scene.camera)
            let range = try SceneRenderer.lensRange(scene.camera), r = target.pose.rotation, t = target.pose.tvec
            let inside = projected.indices.filter {
                let (u, v, _) = points[$0]
                let x = r[0] * u + r[1] * v + t[0], y = r[3] * u + r[4] * v + t[1], z = r[6] * u + r[7] * v + t[2]
                guard z > 0, (x * x + y * y).squareRoot() / z < range else { return false }
                let p = projected[$0]
                return p.x >= margin - 0.5 && p.y >= margin - 0.5 && p.x <= Double(scene.width) - 0.5 - margin && p.y <= Double(scene.height) - 0.5 - margin
            }
            return CharucoCorners(ids: inside, corners: inside.map { projected[$0] })
        }
    }

    /// cv::projectPoints (or its fisheye twin) of target points.
    public static func project(_ points: [(Double, Double, Double)], pose: Pose3D, camera: CameraCalibration) throws -> [Point2] {
        let object = points.flatMap { [$0.0, $0.1, $0.2] }
        var image = [Double](repeating: 0, count: 2 * points.count)
        try Bridge.check(cvb_project_model(object, Int32(points.count), pose.rvec, pose.tvec, camera.cameraMatrix, camera.distortion,
                                           Int32(camera.distortion.count), camera.bridgeModel, &image))
        return (0..<points.count).map { Point2(x: image[2 * $0], y: image[2 * $0 + 1]) }
    }
}

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
            let corners = try project([(-h, h), (h, h), (h, -h), (-h, -h)].map(target.surfacePoint), pose: target.pose, camera: scene.camera)
            return Marker(id: id, corners: corners, pose: target.pose, side: side)
        }
    }

    /// Inner corners of every checkerboard target, row by row as OpenCV orders them.
    public static func chessboardCorners(of scene: Scene) throws -> [[Point2]] {
        try scene.targets.compactMap { target in
            guard case .checkerboard(let board) = target.pattern else { return nil }
            let s = board.square.millimetres
            let points = (0..<board.innerRows).flatMap { r in (0..<board.innerColumns).map { c in target.surfacePoint(Double(c) * s, Double(r) * s) } }
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
            let (projected, seen) = try inView(board.corners, of: target, in: scene, margin: margin)
            let inside = projected.indices.filter { seen[$0] }
            return CharucoCorners(ids: inside, corners: inside.map { projected[$0] })
        }
    }

    /// The markers of every ChArUco target whose four corners are in view (as `charucoCorners`), each with
    /// the pose of its centre in OpenCV's marker frame (tangent to a bent board).
    public static func charucoMarkers(of scene: Scene, margin: Double = 3) throws -> [Marker] {
        var out: [Marker] = []
        for target in scene.targets {
            guard case .charuco(let board) = target.pattern else { continue }
            let side = board.marker.millimetres, markers = board.markers
            let (all, seen) = try inView(markers.flatMap(\.corners), of: target, in: scene, margin: margin)
            for (k, marker) in markers.enumerated() {
                guard seen[(4 * k)..<(4 * k + 4)].allSatisfy({ $0 }) else { continue }
                let corners = Array(all[(4 * k)..<(4 * k + 4)])
                let u = marker.corners.map(\.x).reduce(0, +) / 4, v = marker.corners.map(\.y).reduce(0, +) / 4
                let (x, y, z) = target.surfacePoint(u, v)
                // Board frame to marker frame: y up and z out of the print (a half turn about x), tipped
                // with the bent sheet's tangent there.
                let tangent = [0, -target.curvature * (u - target.bendAxis), 0]
                let rvec = Pose3D.compose(Pose3D.compose([Double.pi, 0, 0], then: tangent), then: target.pose.rvec)
                let r = target.pose.rotation, t = target.pose.tvec
                let centre = [r[0] * x + r[1] * y + r[2] * z + t[0], r[3] * x + r[4] * y + r[5] * z + t[1], r[6] * x + r[7] * y + r[8] * z + t[2]]
                out.append(Marker(id: marker.id, corners: corners, pose: Pose3D(rvec: rvec, tvec: centre), side: side))
            }
        }
        return out
    }

    /// Board points of `target` projected into the scene's image, and which of them are in view: in front
    /// of the camera, within the lens's one-to-one range, inside the image `margin` px from its edge.
    static func inView(_ points: [Point2], of target: Target, in scene: Scene, margin: Double) throws -> ([Point2], [Bool]) {
        let surface = points.map { target.surfacePoint($0.x, $0.y) }
        let projected = try project(surface, pose: target.pose, camera: scene.camera)
        let range = try SceneRenderer.lensRange(scene.camera), r = target.pose.rotation, t = target.pose.tvec
        let seen = projected.indices.map { i -> Bool in
            let (u, v, w) = surface[i]
            let x = r[0] * u + r[1] * v + r[2] * w + t[0], y = r[3] * u + r[4] * v + r[5] * w + t[1], z = r[6] * u + r[7] * v + r[8] * w + t[2]
            guard z > 0, (x * x + y * y).squareRoot() / z < range else { return false }
            let p = projected[i]
            return p.x >= margin - 0.5 && p.y >= margin - 0.5 && p.x <= Double(scene.width) - 0.5 - margin && p.y <= Double(scene.height) - 0.5 - margin
        }
        return (projected, seen)
    }

    /// cv::projectPoints (or its fisheye twin) of target points.
    public static func project(_ points: [(Double, Double, Double)], pose: Pose3D, camera: CameraCalibration) throws -> [Point2] {
        try camera.project(points, pose: pose)
    }
}

import CVBridge
import Foundation

/// A rig calibrated jointly from synchronized views: each camera first calibrated alone (`Calibrator`,
/// with its outlier rounds), the cameras' relative poses started from the views two cameras share, then
/// every camera's intrinsics, every camera's pose relative to camera 0 and every view's board pose solved
/// together over all reprojection errors (`cvb_rig_solve`): a board pose is shared by all cameras that saw
/// it, and a view that only some cameras saw, or saw in part (ChArUco), counts for those.
public struct RigCalibrator: Sendable {
    /// The board, lens model and flags, the same for every camera.
    public var calibrator: Calibrator

    public init(calibrator: Calibrator) { self.calibrator = calibrator }

    /// One camera's board search: its name and its views in the rig's view order.
    public struct Camera: Sendable {
        public let name: String
        public let views: [Calibrator.View]
        public let width: Int
        public let height: Int

        public init(name: String, views: [Calibrator.View], width: Int, height: Int) {
            self.name = name
            self.views = views
            self.width = width
            self.height = height
        }
    }

    public struct Result: Sendable {
        public var rig: CameraRig
        /// Each camera's own calibration (before the joint solve), with its views and why any was not used.
        public let single: [Calibrator.Result]
        /// Iterations of the joint solve.
        public let iterations: Int
        /// Each view's board pose in camera 0 (nil when no camera used it).
        public let boardPoses: [Pose3D?]
    }

    /// Calibrates the rig; throws with the camera named when one cannot be calibrated or shares no view
    /// with the others.
    public func calibrate(cameras: [Camera], name: String) throws -> Result {
        guard cameras.count >= 2 else { throw MarkerKitError.invalidArgument("a rig needs 2 cameras or more") }
        let single = try cameras.map { camera -> Calibrator.Result in
            guard camera.views.contains(where: { $0.status == .used }) else {
                throw MarkerKitError.badInput("camera '\(camera.name)' never sees the board: \(counted(camera.views.count, "image")), none with the board")
            }
            do {
                return try calibrator.calibrate(views: camera.views, width: camera.width, height: camera.height, name: camera.name)
            } catch let error as MarkerKitError {
                throw MarkerKitError.badInput("camera '\(camera.name)': \(error.description)")
            }
        }
        let viewCount = cameras[0].views.count
        guard cameras.allSatisfy({ $0.views.count == viewCount }) else { throw MarkerKitError.invalidArgument("the cameras' views are not matched") }
        // poses[c][v]: the board in camera c, for the views camera c used.
        let poses = single.map { result in result.views.map { $0.status == .used ? Pose3D(rvec: $0.rvec, tvec: $0.tvec) : nil } }
        let extrinsics = try startingExtrinsics(poses, names: cameras.map(\.name))
        let board = (0..<viewCount).map { v -> Pose3D? in
            guard let c = poses.indices.first(where: { poses[$0][v] != nil }) else { return nil }
            return RigMath.compose(poses[c][v]!, then: RigMath.inverse(extrinsics[c]))
        }
        return try solve(single: single, poses: poses, extrinsics: extrinsics, board: board, name: name)
    }

    /// Finds the board in each camera's files (the same view at the same index in every camera) and
    /// calibrates the rig: what `calibrate --rig`, a rig capture's `--calibrate` and the page do.
    public func calibrate(files: [[URL]], names: [String], name: String) throws -> Result {
        let cameras = try names.indices.map { c -> Camera in
            let found = try calibrator.findBoards(in: files[c])
            return Camera(name: names[c], views: found.views, width: found.width, height: found.height)
        }
        return try calibrate(cameras: cameras, name: name)
    }

    /// Each camera's pose relative to camera 0 from the views it shares with a camera already placed
    /// (breadth first from camera 0): the median of the per-view relative poses, as OpenCV starts its stereo solve.
    func startingExtrinsics(_ poses: [[Pose3D?]], names: [String]) throws -> [Pose3D] {
        var placed: [Pose3D?] = Array(repeating: nil, count: poses.count)
        placed[0] = Pose3D(rvec: [0, 0, 0], tvec: [0, 0, 0])
        var queue = [0]
        while !queue.isEmpty {
            let known = queue.removeFirst()
            for c in poses.indices where placed[c] == nil {
                // x_c = T_cb T_kb^-1 x_k for each view both saw.
                let relative = poses[c].indices.compactMap { v -> Pose3D? in
                    guard let a = poses[c][v], let b = poses[known][v] else { return nil }
                    return RigMath.compose(RigMath.inverse(b), then: a)
                }
                guard !relative.isEmpty else { continue }
                placed[c] = RigMath.compose(RigMath.median(relative), after: placed[known]!)
                queue.append(c)
            }
        }
        if let lost = placed.firstIndex(where: { $0 == nil }) {
            throw MarkerKitError.badInput("camera '\(names[lost])' shares no view of the board with camera '\(names[0])' or one placed from it: take views where two cameras see the board at once")
        }
        return placed.map { $0! }
    }
}

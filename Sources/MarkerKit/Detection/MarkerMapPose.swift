import CVBridge

/// One pose for a marker map (`MarkerMap`) from the corners of every marker of it seen: a sheet's, or the
/// markers of one plane of any map (one face of a cube) (planar: both of IPPE's poses, refined, so the
/// choice between them can be seen as for one marker), or a cube's markers on several faces (SQPnP's one
/// pose), each refined by Levenberg-Marquardt. A marker whose corners do not fit the
/// pose (its RMS reprojection error over 3 times the markers' median and over 1 px: misread, moved, or
/// another copy of its ID) is an outlier: it is left out and the pose found again. The translation is in
/// metres, as markers' poses are.
public struct MarkerMapPose: Sendable {
    public let map: MarkerMap
    /// Whether the map's corners lie on one plane (computed once).
    public let isPlanar: Bool

    /// The pose of one frame: both poses (the same twice when there is one), how many there are, the IDs
    /// used and the outliers.
    public struct Result: Sendable, Equatable {
        public var poses: MarkerPoses
        /// 2 when the map is planar and IPPE's two poses stay apart after refinement (a small or distant
        /// sheet); 1 for a map that is not planar or whose two poses refine to one.
        public var solutions: Int
        public var markers: [Int]
        public var outliers: [Int]
        /// For a ChArUco board (`CharucoBoardPose`): the chessboard corners the pose is from.
        public var corners: Int? = nil
    }

    /// Each marker's corners by ID, looked up for every marker of every frame.
    private let corners: [Int: [SIMD3<Double>]]
    /// How long the map's axes are drawn (metres): half the distance from its origin to its farthest corner.
    public let axisLength: Double

    public init(map: MarkerMap) {
        self.map = map
        isPlanar = map.isPlanar
        corners = Dictionary(map.markers.map { ($0.id, $0.corners.map { SIMD3($0[0], $0[1], $0[2]) }) }, uniquingKeysWith: { first, _ in first })
        let farthest = map.markers.flatMap(\.corners).map { ($0[0] * $0[0] + $0[1] * $0[1] + $0[2] * $0[2]).squareRoot() }.max() ?? 0
        axisLength = max(farthest / 2, 1e-3) * map.millimetresPerUnit / 1000
    }

    /// The map's pose from `markers` (of which those in the map count) through `calibration`, or nil when
    /// none of the map's markers is among them.
    public func pose(of markers: [MarkerDetection], calibration: CameraCalibration) throws -> Result? {
        var used = markers.filter { corners[$0.id] != nil }
        guard !used.isEmpty else { return nil }
        var (poses, solutions) = try solve(used, calibration: calibration)
        var outliers: [Int] = []
        if used.count >= 3 {
            let errors = try used.map { try error(of: $0, at: poses.chosen, calibration: calibration) }
            let limit = max(1, 3 * errors.sorted()[errors.count / 2])
            outliers = zip(used, errors).filter { $0.1 > limit }.map(\.0.id)
            if !outliers.isEmpty {
                used.removeAll { outliers.contains($0.id) }
                (poses, solutions) = try solve(used, calibration: calibration)
            }
        }
        return Result(poses: poses, solutions: solutions, markers: used.map(\.id).sorted(), outliers: outliers.sorted(), corners: nil)
    }

    /// The rotation (camera from marker frame) marker `id` has when the map has `pose`: the marker's own
    /// axes in the map (x from its first corner to its second, y from its fourth to its first, z = x X y)
    /// turned by the map's rotation.
    public func markerRotation(_ id: Int, mapPose pose: MarkerPose) -> MarkerPose? {
        guard let c = corners[id] else { return nil }
        func unit(_ v: SIMD3<Double>) -> SIMD3<Double> { v / (v * v).sum().squareRoot() }
        let x = unit(c[1] - c[0]), y0 = unit(c[0] - c[3])
        let z = unit(cross(x, y0)), y = cross(z, x)
        let r = Pose3D(rvec: pose.rvec, tvec: pose.tvec).rotation
        // R_camera<-marker = R_camera<-map [x y z].
        var m = [Double](repeating: 0, count: 9)
        let axes = [x, y, z]
        for i in 0..<3 { for j in 0..<3 { m[3 * i + j] = r[3 * i] * axes[j].x + r[3 * i + 1] * axes[j].y + r[3 * i + 2] * axes[j].z } }
        return MarkerPose(rvec: Pose3D.rvec(from: m), tvec: pose.tvec)
    }

    /// The poses that fit `used`'s corners best, the better first, and how many differ.
    private func solve(_ used: [MarkerDetection], calibration c: CameraCalibration) throws -> (MarkerPoses, Int) {
        let metres = map.millimetresPerUnit / 1000
        var object: [Double] = [], image: [Double] = []
        for marker in used {
            for (k, corner) in corners[marker.id]!.enumerated() {
                object += [corner.x * metres, corner.y * metres, corner.z * metres]
                image += [marker.quad[k].x, marker.quad[k].y]
            }
        }
        // A map that is not planar may show markers of one plane only (one face of a cube): their two poses.
        let planar = isPlanar || MarkerMap.arePlanar(used.flatMap { corners[$0.id]! })
        return try Self.solve(object: object, image: image, planar: planar, calibration: c)
    }

    /// The poses that fit points `object` (x y z each, metres) seen at `image` (x y each) best, the better
    /// first, and how many differ (by 0.01 degrees or 0.1% of the distance): both of IPPE's for points on
    /// one plane, SQPnP's one otherwise, each refined (`cvb_solve_pnp_points`).
    static func solve(object: [Double], image: [Double], planar: Bool, calibration c: CameraCalibration) throws -> (MarkerPoses, Int) {
        var out = [Double](repeating: 0, count: 14), solutions: Int32 = 0
        try Bridge.check(cvb_solve_pnp_points(object, image, Int32(object.count / 3), c.cameraMatrix, c.distortion, Int32(c.distortion.count),
                                              c.bridgeModel, planar ? 1 : 0, &out, &solutions))
        let first = MarkerPose(rvec: Array(out[0..<3]), tvec: Array(out[3..<6]))
        let second = solutions > 1 ? MarkerPose(rvec: Array(out[7..<10]), tvec: Array(out[10..<13])) : first
        let poses = MarkerPoses(chosen: first, other: second, chosenError: out[6], otherError: solutions > 1 ? out[13] : out[6])
        let apart = first.degrees(from: second) > 0.01
            || ((first.translation - second.translation) * (first.translation - second.translation)).sum() > 1e-6 * (first.translation * first.translation).sum()
        guard apart else { return (MarkerPoses(chosen: first, other: first, chosenError: out[6], otherError: out[6]), 1) }
        return (poses.otherError < poses.chosenError ? poses.swapped : poses, 2)
    }

    /// The sigma of the map's pose `pose` from the corners of the markers `used` (IDs) among `markers`, each
    /// marker's corners with their own noise (`CornerNoise`); nil when one of them has none (corners not
    /// refined) or the corners fix no pose. Where the markers disagree with each other more than their
    /// noise allows (the pose's squared residuals over what that noise leaves after the fit: a face seen
    /// steeply, a map measured roughly), the sigma grows by the square root of that ratio (from two markers on).
    public func sigma(of markers: [MarkerDetection], used: [Int], pose: MarkerPose, calibration: CameraCalibration) -> PoseSigma? {
        let metres = map.millimetresPerUnit / 1000
        var object: [Double] = [], covariance: [Double] = []
        var squares = 0.0, variances = 0.0
        for id in used {
            guard let marker = markers.first(where: { $0.id == id }), let noise = marker.noise, let points = corners[id],
                  let blocks = try? PoseUncertainty.cornerCovariance(marker.quad, noise: noise),
                  let error = try? error(of: marker, at: pose, calibration: calibration) else { return nil }
            for corner in points { object += [corner.x * metres, corner.y * metres, corner.z * metres] }
            covariance += blocks
            squares += 4 * error * error
            variances += (0..<8).map { blocks[9 * $0] }.reduce(0, +)
        }
        guard !object.isEmpty, let jacobian = try? PoseUncertainty.jacobian(object: object, pose: pose, calibration: calibration),
              let sigma = try? PoseUncertainty.sigma(jacobian: jacobian, block: 4, covariance: covariance) else { return nil }
        // A fit of 6 parameters to 2n coordinates leaves (2n - 6) / 2n of their variance in the residuals.
        let coordinates = Double(object.count / 3 * 2)
        // One marker's 2 degrees of freedom say too little about it: from two markers on.
        let ratio = used.count >= 2 && variances > 0 ? squares / (variances * (coordinates - 6) / coordinates) : 1
        let scale = ratio.isFinite ? max(1, ratio).squareRoot() : 1
        return PoseSigma(rotation: sigma.rotation * scale, translation: sigma.translation * scale)
    }

    /// The RMS distance in pixels between `marker`'s corners and the map's corners projected at `pose`.
    private func error(of marker: MarkerDetection, at pose: MarkerPose, calibration: CameraCalibration) throws -> Double {
        let metres = map.millimetresPerUnit / 1000
        let corners = corners[marker.id]!.map { ($0.x * metres, $0.y * metres, $0.z * metres) }
        let projected = try calibration.project(corners, pose: Pose3D(rvec: pose.rvec, tvec: pose.tvec))
        let sum = (0..<4).map { k in
            let dx = projected[k].x - marker.quad[k].x, dy = projected[k].y - marker.quad[k].y
            return dx * dx + dy * dy
        }.reduce(0, +)
        return (sum / 4).squareRoot()
    }
}

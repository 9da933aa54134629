import CVBridge
import Foundation

extension RigCalibrator {
    /// The joint solve from the cameras' own calibrations and the starting poses, and the rig it gives.
    func solve(single: [Calibrator.Result], poses: [[Pose3D?]], extrinsics: [Pose3D], board: [Pose3D?], name: String) throws -> Result {
        let n = single.count
        // Only views some camera used take part; `index` maps a rig view to its solve index.
        let solved = board.indices.filter { board[$0] != nil }
        var groupView: [Int32] = [], groupCamera: [Int32] = [], groupPoints: [Int32] = [], object: [Double] = [], image: [Double] = []
        var sigmas: [Double?] = []
        let points = single[0].boardPoints
        for (index, v) in solved.enumerated() {
            for c in 0..<n where poses[c][v] != nil {
                let view = single[c].views[v]
                groupView.append(Int32(index))
                groupCamera.append(Int32(c))
                groupPoints.append(Int32(view.corners.count))
                object += view.cornerIDs.flatMap { [points[$0].0, points[$0].1, points[$0].2] }
                image += view.corners.flatMap { [$0.x, $0.y] }
                sigmas += view.cornerSigmas ?? [Double?](repeating: nil, count: view.corners.count)
            }
        }
        var models: [cvb_model] = [], counts: [Int32] = [], frees: [Int32] = [], parameterizations: [Double] = []
        var matrices: [Double] = [], distortions: [Double] = []
        for result in single {
            let c = result.calibration
            models.append(c.bridgeModel)
            counts.append(Int32(c.distortion.count))
            let (p, free) = calibrator.parameterization(fx: c.fx, fy: c.fy)
            parameterizations += p
            frees.append(Int32(free))
            matrices += c.cameraMatrix
            distortions += c.distortion + Array(repeating: 0, count: 8 - c.distortion.count)
        }
        var rigExtrinsics = extrinsics.flatMap { $0.rvec + $0.tvec }
        var boardPoses = solved.flatMap { board[$0]!.rvec + board[$0]!.tvec }
        let global = frees.reduce(0) { $0 + Int($1) } + 6 * (n - 1)
        var covariance = [Double](repeating: 0, count: global * global), groupRMS = [Double](repeating: 0, count: groupView.count)
        var weightedRMS = groupRMS, noise = 0.0, iterations: Int32 = 0
        func call(_ weights: [Double]) throws {
            try Bridge.check(cvb_rig_solve(Int32(n), models, counts, &matrices, &distortions, parameterizations, frees, &rigExtrinsics,
                                           Int32(solved.count), &boardPoses, Int32(groupView.count), groupView, groupCamera, groupPoints,
                                           object, image, weights, &covariance, &groupRMS, &weightedRMS, &noise, &iterations)) {
                .badInput("the rig's joint solve failed: \($0)")
            }
        }
        // Each corner weighed by the inverse of its noise: first of its own fit's sigma relative to its
        // camera's typical one (a corner far down a tilted board, with fewer pixels, is noisier), then each
        // camera by its own weighted residuals (a camera with smaller squares or a softer lens has noisier
        // corners), so that the solve is the likeliest one and its covariance holds for every corner.
        var cameraOf: [Int] = []
        for g in groupView.indices { cameraOf += [Int](repeating: Int(groupCamera[g]), count: Int(groupPoints[g])) }
        let relative = Self.relativeWeights(sigmas: sigmas, cameras: cameraOf, count: n)
        try call(relative)
        let corners = groupPoints.reduce(0) { $0 + Int($1) }
        let dof = Double(2 * corners - global - 6 * solved.count)
        let scale = (0..<n).map { c -> Double in
            let mine = groupView.indices.filter { groupCamera[$0] == Int32(c) }
            let squares = mine.reduce(0.0) { $0 + weightedRMS[$1] * weightedRMS[$1] * Double(groupPoints[$1]) }
            let count = mine.reduce(0) { $0 + Int(groupPoints[$1]) }
            // This camera's share of the degrees of freedom, as its share of the coordinates.
            let sigma = (squares / max(1, dof * Double(count) / Double(corners))).squareRoot()
            return sigma > 0 ? 1 / sigma : 1
        }
        try call(zip(relative, cameraOf).map { $0 * scale[$1] })
        let pooled = groupView.indices.reduce(0.0) { $0 + groupRMS[$1] * groupRMS[$1] * Double(groupPoints[$1]) }
        noise = (pooled / max(1, dof)).squareRoot()
        let solvedExtrinsics = (0..<n).map { Pose3D(rvec: Array(rigExtrinsics[(6 * $0)..<(6 * $0 + 3)]), tvec: Array(rigExtrinsics[(6 * $0 + 3)..<(6 * $0 + 6)])) }
        let solvedBoard: [Pose3D?] = board.indices.map { v in
            solved.firstIndex(of: v).map { i in Pose3D(rvec: Array(boardPoses[(6 * i)..<(6 * i + 3)]), tvec: Array(boardPoses[(6 * i + 3)..<(6 * i + 6)])) }
        }
        // Errors per camera and per pair, from each group's RMS over its points.
        var squares = [[Double]](repeating: [Double](repeating: 0, count: board.count), count: n)
        var seen = [[Int]](repeating: [Int](repeating: 0, count: board.count), count: n)
        for g in groupView.indices {
            let c = Int(groupCamera[g]), v = solved[Int(groupView[g])], k = Int(groupPoints[g])
            squares[c][v] = groupRMS[g] * groupRMS[g] * Double(k)
            seen[c][v] = k
        }
        func rms(_ cams: [Int], views: [Int]) -> Double {
            let s = cams.reduce(0.0) { a, c in views.reduce(a) { $0 + squares[c][$1] } }
            let k = cams.reduce(0) { a, c in views.reduce(a) { $0 + seen[c][$1] } }
            return k > 0 ? (s / Double(k)).squareRoot() : 0
        }
        let cameraRMS = (0..<n).map { rms([$0], views: Array(board.indices)) }
        var pairs: [CameraRig.PairError] = []
        for a in 0..<n {
            for b in (a + 1)..<n {
                let both = board.indices.filter { seen[a][$0] > 0 && seen[b][$0] > 0 }
                pairs.append(CameraRig.PairError(first: a, second: b, rms: rms([a, b], views: both), views: both.count))
            }
        }
        var cameras: [CameraCalibration] = []
        var offset = 0
        var layout: [Double] = [] // free -> full map, block diagonal, for the stored covariance
        let full = single.reduce(0) { $0 + 4 + $1.calibration.distortion.count } + 6 * (n - 1)
        layout = [Double](repeating: 0, count: full * global)
        var fullRow = 0
        for c in 0..<n {
            let start = single[c].calibration
            var camera = try CameraCalibration(name: start.name, model: start.model, cameraMatrix: Array(matrices[(9 * c)..<(9 * c + 9)]),
                                               distortion: Array(distortions[(8 * c)..<(8 * c + start.distortion.count)]),
                                               imageWidth: start.imageWidth, imageHeight: start.imageHeight, provenance: start.provenance)
            let (p, free) = calibrator.parameterization(fx: start.fx, fy: start.fy)
            let size = 4 + start.distortion.count
            for i in 0..<size { for j in 0..<free { layout[(fullRow + i) * global + offset + j] = p[i * free + j] } }
            // Standard deviations of this camera's intrinsics from the joint covariance.
            let sd = (0..<size).map { i -> Double in
                var s = 0.0
                for a in 0..<free { for b in 0..<free { s += p[i * free + a] * covariance[(offset + a) * global + offset + b] * p[i * free + b] } }
                return max(0, s).squareRoot()
            }
            camera.provenance?.rms = cameraRMS[c]
            camera.provenance?.stdDeviations = sd
            camera.provenance?.perViewErrors = single[c].views.indices.compactMap { v in seen[c][v] > 0 ? (squares[c][v] / Double(seen[c][v])).squareRoot() : nil }
            camera.camera = start.camera
            camera.projectionCovariance = try jointProjectionCovariance(camera, views: single[c].views, board: solvedBoard,
                                                                        extrinsic: solvedExtrinsics[c], points: single[c].boardPoints)
            cameras.append(camera)
            offset += free
            fullRow += size
        }
        for i in 0..<(6 * (n - 1)) { layout[(fullRow + i) * global + offset + i] = 1 }
        let e = 6 * (n - 1)
        let extrinsicCovariance = (0..<(e * e)).map { covariance[(offset + $0 / e) * global + offset + $0 % e] }
        let rig = try CameraRig(name: name, cameras: cameras, extrinsics: solvedExtrinsics, units: single[0].calibration.provenance?.units ?? "mm",
                                extrinsicCovariance: symmetric(extrinsicCovariance, e), covariance: symmetric(sandwich(layout, covariance, full, global), full),
                                noise: noise, cameraRMS: cameraRMS, pairErrors: pairs, views: solved.count,
                                calibrationTime: ISO8601DateFormatter().string(from: Date()))
        return Result(rig: rig, single: single, iterations: Int(iterations), boardPoses: solvedBoard)
    }

    /// A camera's projection covariance (what `calibrations uncertainty` maps) with the joint intrinsics and
    /// the board poses the joint solve put in this camera's frame.
    private func jointProjectionCovariance(_ camera: CameraCalibration, views: [Calibrator.View], board: [Pose3D?], extrinsic: Pose3D,
                                           points: [(Double, Double, Double)]) throws -> ProjectionCovariance? {
        var used: [Calibrator.View] = []
        for (v, view) in views.enumerated() where view.status == .used {
            guard let pose = board[v] else { continue }
            var copy = view
            let inCamera = RigMath.compose(pose, then: extrinsic)
            copy.rvec = inCamera.rvec
            copy.tvec = inCamera.tvec
            used.append(copy)
        }
        return try calibrator.projectionCovariance(of: camera, views: used, points: points)
    }

    /// Each point's weight within its camera: the camera's median corner sigma over the point's own, held
    /// within 1/4 and 4 so that a fit's odd sigma cannot make a corner all or nothing; 1 for every point
    /// of a camera whose corners do not all have a sigma (chessboard corners, a capture's views).
    static func relativeWeights(sigmas: [Double?], cameras: [Int], count: Int) -> [Double] {
        let typical = (0..<count).map { c -> Double? in
            let mine = sigmas.indices.filter { cameras[$0] == c }.map { sigmas[$0] }
            guard !mine.isEmpty, mine.allSatisfy({ $0 != nil }) else { return nil }
            let sorted = mine.map { $0! }.sorted()
            return sorted[sorted.count / 2]
        }
        return sigmas.indices.map { i in
            guard let t = typical[cameras[i]], let s = sigmas[i], s > 0 else { return 1 }
            return min(4, max(0.25, t / s))
        }
    }

    /// L C L^T for L (rows x inner) and C (inner x inner).
    private func sandwich(_ l: [Double], _ c: [Double], _ rows: Int, _ inner: Int) -> [Double] {
        var lc = [Double](repeating: 0, count: rows * inner)
        for i in 0..<rows { for k in 0..<inner where l[i * inner + k] != 0 { for j in 0..<inner { lc[i * inner + j] += l[i * inner + k] * c[k * inner + j] } } }
        var out = [Double](repeating: 0, count: rows * rows)
        for i in 0..<rows { for j in 0..<rows { for k in 0..<inner where l[j * inner + k] != 0 { out[i * rows + j] += lc[i * inner + k] * l[j * inner + k] } } }
        return out
    }

    private func symmetric(_ m: [Double], _ size: Int) -> [Double] {
        var m = m
        for i in 0..<size { for j in 0..<i { let mean = (m[i * size + j] + m[j * size + i]) / 2; (m[i * size + j], m[j * size + i]) = (mean, mean) } }
        return m
    }
}

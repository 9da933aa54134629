import CVBridge
import Foundation
import MarkerKitKernels
import Testing
@testable import MarkerKit

/// The pose uncertainty's parts against what they stand for: the kernel's projection Jacobian against
/// differences of OpenCV's projectPoints, a marker's corner covariance against corners found from noisy edge
/// lines, the allocation-free marker sigma against the same differences of OpenCV's IPPE, and a board's
/// sigma against the scatter of poses solved from noisy corners.
@Suite struct PoseUncertaintyTests {
    static let camera = SquarePoseTests.camera

    func calibration(_ distortion: [Double]) throws -> CameraCalibration {
        try CameraCalibration(name: "test", cameraMatrix: Self.camera, distortion: distortion, imageWidth: 1280, imageHeight: 720)
    }

    @Test(arguments: SquarePoseTests.lenses.filter { $0.count <= 8 })
    func theKernelsJacobianIsOpenCVsProjectionDifferentiated(distortion: [Double]) throws {
        let c = try calibration(distortion)
        var random = SeededRandom(seed: 5 + UInt64(distortion.count))
        var largest = 0.0
        for _ in 0..<40 {
            let pose = MarkerPose(rotation: SIMD3(random.uniform(-0.6...0.6), random.uniform(-0.6...0.6) + .pi, random.uniform(-0.6...0.6)),
                                  translation: SIMD3(random.uniform(-0.2...0.2), random.uniform(-0.1...0.1), random.uniform(0.4...1.2)))
            let object = (0..<6).flatMap { _ in [random.uniform(-0.1...0.1), random.uniform(-0.1...0.1), random.uniform(-0.02...0.02)] }
            let ours = try PoseUncertainty.jacobian(object: object, pose: pose, calibration: c)
            let theirs = try PoseUncertainty.differences(object: object, pose: pose, calibration: c)
            let scale = theirs.map(abs).max()!
            for (a, b) in zip(ours, theirs) { largest = max(largest, abs(a - b) / scale) }
        }
        #expect(largest < 1e-5, "largest difference \(largest) of the largest entry")
    }

    /// Corners found as the meeting points of edge lines whose ends are shifted by noise drawn with the
    /// edges' covariance: their scatter is the covariance mkk_square_corner_covariance predicts.
    @Test func aMarkersCornerCovarianceIsTheScatterOfCornersFromNoisyEdges() throws {
        let quad = Quad(Point2(x: 100, y: 100), Point2(x: 210, y: 96), Point2(x: 220, y: 190), Point2(x: 95, y: 205))
        let noise = CornerNoise(start: SIMD4(0.010, 0.004, 0.020, 0.006), end: SIMD4(0.012, 0.005, 0.010, 0.009),
                                covariance: SIMD4(-0.005, -0.002, 0.004, 0.001))
        let predicted = try PoseUncertainty.cornerCovariance(quad, noise: noise)
        var random = SeededRandom(seed: 3)
        let trials = 40_000
        var sum = [Double](repeating: 0, count: 8), products = [Double](repeating: 0, count: 64)
        func normal() -> Double { (-2 * log(random.uniform(1e-12...1))).squareRoot() * cos(2 * .pi * random.uniform(0...1)) }
        for _ in 0..<trials {
            // Each edge's two end offsets, correlated as the noise says (Cholesky of the 2x2).
            var lines: [(Point2, Point2)] = []
            for k in 0..<4 {
                let a = quad[k], b = quad[(k + 1) % 4], length = a.distance(to: b)
                let n = Point2(x: -(b.y - a.y) / length, y: (b.x - a.x) / length)
                let l00 = noise.start[k].squareRoot(), l10 = noise.covariance[k] / l00
                let l11 = (noise.end[k] - l10 * l10).squareRoot()
                let z0 = normal(), z1 = normal()
                let ds = l00 * z0, de = l10 * z0 + l11 * z1
                lines.append((Point2(x: a.x + ds * n.x, y: a.y + ds * n.y), Point2(x: b.x + de * n.x, y: b.y + de * n.y)))
            }
            var corners: [Double] = []
            for i in 0..<4 {
                let (p1, p2) = lines[(i + 3) % 4], (q1, q2) = lines[i]
                let d1 = Point2(x: p2.x - p1.x, y: p2.y - p1.y), d2 = Point2(x: q2.x - q1.x, y: q2.y - q1.y)
                let det = d1.x * d2.y - d1.y * d2.x
                let s = ((q1.x - p1.x) * d2.y - (q1.y - p1.y) * d2.x) / det
                corners += [p1.x + s * d1.x - quad[i].x, p1.y + s * d1.y - quad[i].y]
            }
            for r in 0..<8 {
                sum[r] += corners[r]
                for c in 0..<8 { products[8 * r + c] += corners[r] * corners[c] }
            }
        }
        var worst = 0.0
        for r in 0..<8 {
            for c in 0..<8 {
                let measured = products[8 * r + c] / Double(trials) - sum[r] * sum[c] / Double(trials * trials)
                let scale = (predicted[9 * r] * predicted[9 * c]).squareRoot()
                worst = max(worst, abs(measured - predicted[8 * r + c]) / scale)
            }
        }
        #expect(worst < 0.03, "largest difference \(worst) of the entries' scale")
    }

    /// The allocation-free sigma of a marker's IPPE pose (the kernel's differences in C++) against the same
    /// sensitivity taken in Swift through `poses(of:)`; and a fisheye lens's (OpenCV's IPPE) is given too.
    @Test func theKernelsMarkerSigmaIsIPPEDifferentiated() throws {
        let lens = SquarePoseTests.lenses[2]
        let kernel = MarkerPoseEstimator(calibration: try calibration(lens), side: SquarePoseTests.side)
        let fisheye = MarkerPoseEstimator(calibration: try CameraCalibration(name: "fisheye", model: .fisheye, cameraMatrix: Self.camera,
                                                                             distortion: [0.05, -0.01, 0.002, -0.0005], imageWidth: 1280, imageHeight: 720),
                                          side: SquarePoseTests.side)
        var random = SeededRandom(seed: 17)
        let noise = CornerNoise(start: SIMD4(repeating: 0.004), end: SIMD4(repeating: 0.005), covariance: SIMD4(repeating: -0.002))
        var compared = 0
        for _ in 0..<60 {
            let (corners, _) = SquarePoseTests().randomCorners(&random, distortion: lens, distances: 0.3...1.5)
            let marker = MarkerDetection(id: 1, quad: Quad(corners: (0..<4).map { Point2(x: corners[2 * $0], y: corners[2 * $0 + 1]) }), noise: noise)
            let poses = try kernel.poses(of: marker)
            // Near facing the camera the two IPPE poses meet and differences across them are not a slope.
            guard poses.chosen.degrees(from: poses.other) > 2 else { continue }
            let ours = try #require(kernel.sigma(of: marker, pose: poses.chosen))
            let theirs = try kernel.ippeSigma(of: marker, noise: noise, pose: poses.chosen)
            #expect(abs(ours.rotation - theirs.rotation) <= 1e-3 * theirs.rotation)
            #expect(abs(ours.translation - theirs.translation) <= 1e-3 * theirs.translation)
            compared += 1
            let wide = try fisheye.poses(of: marker).chosen
            let sigma = try #require(fisheye.sigma(of: marker, pose: wide))
            #expect(sigma.rotation > 0 && sigma.rotation.isFinite && sigma.translation > 0 && sigma.translation.isFinite)
        }
        #expect(compared >= 40)
    }

    /// A board seen through a lens, its corners with noise of 0.2 px: the scatter of the least-squares poses
    /// over many draws is the sigma PoseUncertainty predicts for that noise.
    @Test func aBoardsSigmaIsTheScatterOfItsPosesUnderNoise() throws {
        let c = try calibration(SquarePoseTests.lenses[1])
        let truth = MarkerPose(rotation: SIMD3(2.9, 0.3, -0.2), translation: SIMD3(-0.05, 0.02, 0.6))
        var object: [Double] = [], points: [(Double, Double, Double)] = []
        for row in 0..<5 {
            for column in 0..<7 {
                let p = (0.03 * Double(column), 0.03 * Double(row), 0.0)
                object += [p.0, p.1, p.2]
                points.append(p)
            }
        }
        let exact = try c.project(points, pose: Pose3D(rvec: truth.rvec, tvec: truth.tvec))
        let noise = 0.2
        let jacobian = try PoseUncertainty.jacobian(object: object, pose: truth, calibration: c)
        let predicted = try PoseUncertainty.sigma(jacobian: jacobian, block: 1, covariance: (0..<35).flatMap { _ in [noise * noise, 0, 0, noise * noise] })
        var random = SeededRandom(seed: 23)
        func normal() -> Double { (-2 * log(random.uniform(1e-12...1))).squareRoot() * cos(2 * .pi * random.uniform(0...1)) }
        var rotations = 0.0, translations = 0.0
        let draws = 400
        for _ in 0..<draws {
            let image = exact.flatMap { [$0.x + noise * normal(), $0.y + noise * normal()] }
            let (poses, _) = try MarkerMapPose.solve(object: object, image: image, planar: true, calibration: c)
            let pose = poses.chosen.degrees(from: truth) < poses.other.degrees(from: truth) ? poses.chosen : poses.other
            rotations += pow(pose.degrees(from: truth), 2)
            let d: SIMD3<Double> = pose.translation - truth.translation
            translations += (d * d).sum()
        }
        let rotation = (rotations / Double(draws)).squareRoot(), translation = (translations / Double(draws)).squareRoot()
        print("measured: board of 35 corners, noise 0.2 px: rotation scatter \(rotation) vs sigma \(predicted.rotation) degrees; translation \(translation) vs \(predicted.translation) m")
        #expect(abs(rotation / predicted.rotation - 1) < 0.12)
        #expect(abs(translation / predicted.translation - 1) < 0.12)
    }

    @Test func theAnnotationsLabelSaysDegreesAndMillimetres() {
        #expect(MarkerAnnotator.label(PoseSigma(rotation: 0.0421, translation: 0.00123)) == "+-0.042deg 1.23mm")
        #expect(MarkerAnnotator.label(PoseSigma(rotation: 1.5, translation: 0.02)) == "+-1.50deg 20.00mm")
    }
}

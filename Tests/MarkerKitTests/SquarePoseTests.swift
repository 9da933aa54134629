import CVBridge
import Foundation
import MarkerKitKernels
import Testing
@testable import MarkerKit

/// The allocation-free square pose (IPPE on fixed-size arrays) against cv::solvePnP with
/// SOLVEPNP_IPPE_SQUARE on the same corners: markers at random poses, projected through lenses with
/// each supported number of distortion coefficients, with corner noise.
@Suite struct SquarePoseTests {
    static let lenses: [[Double]] = [
        [],
        [-0.28, 0.09, 0.001, -0.0005],
        [-0.28, 0.09, 0.001, -0.0005, -0.01],
        [0.3, -0.1, 0.0008, 0.0004, 0.02, 0.6, -0.05, 0.03],
        [-0.2, 0.05, 0.001, -0.001, 0.0, 0.0, 0.0, 0.0, 0.002, -0.0005, 0.001, 0.0003],
    ]

    static let camera = [900.0, 0, 640, 0, 905, 360, 0, 0, 1]
    static let side = 0.05
    static let object = [-side / 2, side / 2, 0, side / 2, side / 2, 0, side / 2, -side / 2, 0, -side / 2, -side / 2, 0]

    /// A 5 cm marker at a random pose (facing the camera, a half turn about x, tilted up to 70 degrees
    /// about a random axis, at a distance in `distances`), its corners projected through the lens with
    /// noise of up to 0.3 px; and its distance.
    func randomCorners(_ random: inout SeededRandom, distortion: [Double], distances: ClosedRange<Double>) -> (corners: [Double], z: Double) {
        let r = rotationVector(tilt: random.uniform(0...(70 * Double.pi / 180)), axis: random.uniform(0...(2 * Double.pi)))
        let z = random.uniform(distances)
        let t = [random.uniform(-0.4...0.4) * z, random.uniform(-0.25...0.25) * z, z]
        var corners = [Double](repeating: 0, count: 8)
        #expect(cvb_project_model(Self.object, 4, r, t, Self.camera, distortion, Int32(distortion.count), CVB_MODEL_OPENCV5, &corners) == 0)
        for i in 0..<8 { corners[i] += random.uniform(-0.3...0.3) }
        return (corners, z)
    }

    @Test(arguments: lenses)
    func theSameAsOpenCVsIPPESquare(distortion: [Double]) throws {
        let (camera, side, object) = (Self.camera, Self.side, Self.object)
        var random = SeededRandom(seed: UInt64(distortion.count) + 11)
        var compared = 0, differed = 0, largest = 0.0
        for _ in 0..<500 {
            let (corners, _) = randomCorners(&random, distortion: distortion, distances: 0.2...1.5)
            var ours = [Double](repeating: 0, count: 6), theirs = [Double](repeating: 0, count: 6)
            let a = ours.withUnsafeMutableBufferPointer { p in
                mkk_solve_pnp_square(corners, side, camera, distortion, Int32(distortion.count), p.baseAddress!, p.baseAddress! + 3)
            }
            let b = theirs.withUnsafeMutableBufferPointer { p in
                cvb_solve_pnp_square(corners, side, camera, distortion, Int32(distortion.count), CVB_MODEL_OPENCV5, p.baseAddress!, p.baseAddress! + 3)
            }
            #expect(a == 0 && b == 0)
            compared += 1
            let difference = zip(ours, theirs).map { abs($0 - $1) }.max()!
            largest = max(largest, difference)
            if difference > 1e-7 {
                differed += 1
                // IPPE's two solutions can reproject equally well; then either is right.
                let e1 = try reprojection(object, ours, camera, distortion, corners)
                let e2 = try reprojection(object, theirs, camera, distortion, corners)
                #expect(abs(e1 - e2) <= 1e-6 * max(e1, e2) + 1e-12, "ours \(ours) OpenCV \(theirs), errors \(e1) \(e2)")
            }
        }
        print("measured: square pose, \(distortion.count) coefficients, \(compared) poses, \(differed) differ from OpenCV by more than 1e-7, largest difference \(largest)")
        #expect(differed <= compared / 50)
    }

    /// Both of IPPE's poses and their pixel errors against cv::solvePnPGeneric's, for every lens: the same
    /// two poses (in either order where the two reproject equally well) and the same errors.
    @Test(arguments: lenses)
    func bothPosesAreOpenCVsTwo(distortion: [Double]) throws {
        let (camera, side) = (Self.camera, Self.side)
        var random = SeededRandom(seed: UInt64(distortion.count) + 29)
        var largestPose = 0.0, largestError = 0.0, ties = 0
        for _ in 0..<300 {
            let (corners, z) = randomCorners(&random, distortion: distortion, distances: 0.2...3)
            var ours = [Double](repeating: 0, count: 14), theirs = ours
            #expect(mkk_solve_pnp_square_both(corners, side, camera, distortion, Int32(distortion.count), &ours) == 0)
            #expect(cvb_solve_pnp_square_both(corners, side, camera, distortion, Int32(distortion.count), CVB_MODEL_OPENCV5, &theirs) == 0)
            // Rotations compared as rotations (a rotation vector near 180 degrees has two spellings).
            func pose(_ v: [Double], _ s: Int) -> MarkerPose { MarkerPose(rvec: Array(v[s..<s + 3]), tvec: Array(v[s + 3..<s + 6])) }
            func apart(_ a: MarkerPose, _ b: MarkerPose) -> Double {
                max(a.degrees(from: b), ((a.translation - b.translation) * (a.translation - b.translation)).sum().squareRoot() / z)
            }
            if apart(pose(ours, 0), pose(theirs, 0)) > 1e-6 {
                ties += 1 // the order differs: the two reproject alike, so the pair must match crosswise
                theirs = Array(theirs[7..<14] + theirs[0..<7])
                #expect(abs(ours[6] - ours[13]) < 1e-3 * max(ours[6], ours[13]) + 1e-9, "\(ours) \(theirs)")
            }
            for s in [0, 7] {
                largestPose = max(largestPose, apart(pose(ours, s), pose(theirs, s)))
                largestError = max(largestError, abs(ours[s + 6] - theirs[s + 6]))
            }
            #expect(ours[6] >= 0 && ours[13] >= 0 && ours[6] < 2, "the better pose reprojects within the noise: \(ours[6]) px")
        }
        print("measured: both poses, \(distortion.count) coefficients, 300 markers: largest difference from OpenCV \(largestPose) (degrees, or translation / distance), largest error difference \(largestError) px, \(ties) in the other order")
        #expect(largestPose < 1e-4 && largestError < 1e-6)
    }

    /// Through a fisheye lens (OpenCV's fisheye::projectPoints and undistortPoints), corners without noise:
    /// the chosen pose is the truth, its error zero, and the other pose's error larger.
    @Test func bothPosesThroughAFisheyeLens() throws {
        let calibration = try CameraCalibration(name: "fisheye", model: .fisheye, cameraMatrix: [420, 0, 640, 0, 420, 360, 0, 0, 1],
                                                distortion: [0.05, -0.02, 0.004, -0.001], imageWidth: 1280, imageHeight: 720)
        let estimator = MarkerPoseEstimator(calibration: calibration, side: Self.side)
        var random = SeededRandom(seed: 41)
        var worst = (degrees: 0.0, distance: 0.0, error: 0.0)
        for _ in 0..<100 {
            let r = rotationVector(tilt: random.uniform(0.5...1.1), axis: random.uniform(0...(2 * Double.pi)))
            let z = random.uniform(0.15...0.4)
            let t = [random.uniform(-0.6...0.6) * z, random.uniform(-0.4...0.4) * z, z]
            let h = Self.side / 2
            let projected = try calibration.project([(-h, h, 0), (h, h, 0), (h, -h, 0), (-h, -h, 0)], pose: Pose3D(rvec: r, tvec: t))
            let marker = MarkerDetection(id: 0, corners: projected)
            let poses = try estimator.poses(of: marker)
            let truth = MarkerPose(rvec: r, tvec: t)
            let d = poses.chosen.translation - truth.translation
            worst = (max(worst.degrees, poses.chosen.degrees(from: truth)), max(worst.distance, (d * d).sum().squareRoot() / z), max(worst.error, poses.chosenError))
            #expect(poses.otherError > 0.1 && !poses.isAmbiguous)
        }
        print("measured: fisheye, 100 markers tilted 30-63 degrees: chosen pose at most \(worst.degrees) degrees and \(100 * worst.distance)% of the distance from the truth, error at most \(worst.error) px")
        #expect(worst.degrees < 0.01 && worst.distance < 1e-4 && worst.error < 1e-3)
    }

    func rotationVector(tilt: Double, axis: Double) -> [Double] {
        // R = Rtilt * Rx(pi), composed through rotation matrices.
        let k = (cos(axis), sin(axis))
        let c = cos(tilt), s = sin(tilt)
        let tiltR = [[c + k.0 * k.0 * (1 - c), k.0 * k.1 * (1 - c), k.1 * s],
                     [k.0 * k.1 * (1 - c), c + k.1 * k.1 * (1 - c), -k.0 * s],
                     [-k.1 * s, k.0 * s, c]]
        let flip = [[1.0, 0, 0], [0, -1, 0], [0, 0, -1]]
        var R = [[Double]](repeating: [0, 0, 0], count: 3)
        for i in 0..<3 { for j in 0..<3 { R[i][j] = (0..<3).map { tiltR[i][$0] * flip[$0][j] }.reduce(0, +) } }
        let angle = acos(max(-1, min(1, (R[0][0] + R[1][1] + R[2][2] - 1) / 2)))
        let axisVector = [R[2][1] - R[1][2], R[0][2] - R[2][0], R[1][0] - R[0][1]]
        let norm = axisVector.map { $0 * $0 }.reduce(0, +).squareRoot()
        guard norm > 1e-9 else { return [Double.pi, 0, 0] }
        return axisVector.map { $0 / norm * angle }
    }

    func reprojection(_ object: [Double], _ pose: [Double], _ camera: [Double], _ distortion: [Double], _ corners: [Double]) throws -> Double {
        var projected = [Double](repeating: 0, count: 8)
        #expect(cvb_project_model(object, 4, Array(pose[0..<3]), Array(pose[3..<6]), camera, distortion, Int32(distortion.count), CVB_MODEL_OPENCV5, &projected) == 0)
        return zip(projected, corners).map { ($0 - $1) * ($0 - $1) }.reduce(0, +)
    }
}

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

    @Test(arguments: lenses)
    func theSameAsOpenCVsIPPESquare(distortion: [Double]) throws {
        let camera = [900.0, 0, 640, 0, 905, 360, 0, 0, 1]
        var random = SeededRandom(seed: UInt64(distortion.count) + 11)
        let side = 0.05, h = side / 2
        let object = [-h, h, 0, h, h, 0, h, -h, 0, -h, -h, 0]
        var compared = 0, differed = 0, largest = 0.0
        for _ in 0..<500 {
            // Facing the camera (a half turn about x), tilted up to 70 degrees about a random axis.
            let tilt = random.uniform(0...(70 * Double.pi / 180)), axis = random.uniform(0...(2 * Double.pi))
            let r = rotationVector(tilt: tilt, axis: axis)
            let z = random.uniform(0.2...1.5)
            let t = [random.uniform(-0.4...0.4) * z, random.uniform(-0.25...0.25) * z, z]
            var corners = [Double](repeating: 0, count: 8)
            #expect(cvb_project_model(object, 4, r, t, camera, distortion, Int32(distortion.count), CVB_MODEL_OPENCV5, &corners) == 0)
            for i in 0..<8 { corners[i] += random.uniform(-0.3...0.3) }
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

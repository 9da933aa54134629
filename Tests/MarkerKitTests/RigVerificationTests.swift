import Foundation
import Testing
@testable import MarkerKit

/// A rendered rig of three cameras with different lenses and image sizes, a ChArUco board that leaves some
/// cameras' images: the joint solve finds every camera's true pose within a few of its own sigma, and
/// uses views that only some cameras saw.
@Suite struct RigVerificationTests {
    @Test func aRenderedThreeCameraChArUcoRigIsRecoveredWithinItsSigma() throws {
        var verification = try RigVerification(cameras: 3, views: 6, seed: 7)
        verification.charuco = try CharucoBoard(squaresX: 10, squaresY: 7, square: .mm(30), marker: .mm(22))
        verification.noise = 2
        // Some views leave a camera's image: that camera sees part of the board, and the view counts.
        let (poses, seen) = try verification.boardPoses()
        let target = verification.target
        let inner = (0..<(target.innerColumns * target.innerRows)).map(target.point(of:))
        var partial = 0
        for (v, pose) in poses.enumerated() {
            for (c, camera) in verification.cameras.enumerated() where seen[v][c] {
                let points = try SceneTruth.project(inner, pose: RigMath.compose(pose, then: verification.extrinsics[c]), camera: camera)
                if points.contains(where: { $0.x < 0 || $0.y < 0 || $0.x > Double(camera.imageWidth) || $0.y > Double(camera.imageHeight) }) { partial += 1 }
            }
        }
        #expect(partial > 0, "some cameras see part of the board only")
        let summary = try verification.run()
        #expect(summary.rows.count == 2)
        for row in summary.rows {
            print(String(format: "measured: %@ T error %.4f mm, R error %.4f°, OpenCV joint %.4f mm %.4f°, err/sigma %@", row.camera, row.translationError,
                         row.rotationError, row.openCVTranslationError, row.openCVRotationError, row.ratios.map { String(format: "%.2f", $0) }.joined(separator: " ")))
            #expect(row.translationError < 0.1 && row.rotationError < 0.05)
            #expect(row.ratios.allSatisfy { abs($0) < 4 })
        }
    }

    @Test func aRigOfOneOrFourCamerasIsRefused() {
        #expect(throws: MarkerKitError.self) { try RigVerification(cameras: 1, views: 10, seed: 7) }
        #expect(throws: MarkerKitError.self) { try RigVerification(cameras: 4, views: 10, seed: 7) }
    }
}

extension RigVerificationTests {
    /// `render --clip --rig`: a video per camera with the same frames' instants, the board spec and the true
    /// rig beside them.
    @Test func aRigClipHasOneVideoPerCameraAndTheTrueRig() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("rig-clip-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let verification = try RigVerification(cameras: 2, views: 3, seed: 7)
        try verification.writeClip(into: dir, hold: 2, move: 1, force: false)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() == ["board.json", "cam0.avi", "cam1.avi", "truth.yaml"])
        for c in 0..<2 {
            var source = try VideoFileSource(url: dir.appendingPathComponent("cam\(c).avi"))
            var frames = 0
            while try source.next() != nil { frames += 1 }
            #expect(frames == 3 * 2 + 2 * 1, "3 views held 2 frames, 1 frame of motion between")
        }
        let truth = try CameraRig.read(from: dir.appendingPathComponent("truth.yaml"))
        #expect(abs(truth.baseline(of: 1) - 120) < 1e-9 && truth.cameras.map(\.imageWidth) == [1280, 1280])
        #expect(throws: MarkerKitError.self) { try verification.writeClip(into: dir, hold: 2, move: 1, force: false) }
    }
}

extension RigVerificationTests {
    /// The range `verify calibration --rig` prints beside its error / sigma figures: for independent
    /// components it is the chi distribution's (90 unit ratios: 0.854-1.146); components that move
    /// together count as fewer ratios and widen it.
    @Test func theRangeRightSigmasGiveWidensWhenComponentsMoveTogether() throws {
        func summary(_ correlation: [Double], seeds: Int) -> RigVerification.Summary {
            var s = RigVerification.Summary(cameras: 2, views: 20, noise: 3, blur: 0.8, rows: [])
            s.correlations = Array(repeating: correlation, count: seeds)
            return s
        }
        let identity = (0..<36).map { $0 / 6 == $0 % 6 ? 1.0 : 0.0 }
        let independent = try #require(summary(identity, seeds: 30).expectedRange())
        print(String(format: "measured: 30 seeds, independent: rotation %.3f-%.3f", independent.rotation.lowerBound, independent.rotation.upperBound))
        #expect(abs(independent.rotation.lowerBound - 0.854) < 0.02 && abs(independent.rotation.upperBound - 1.146) < 0.02)
        #expect(abs(independent.translation.lowerBound - 0.854) < 0.02 && abs(independent.translation.upperBound - 1.146) < 0.02)
        // The three translation components almost one: 30 ratios' worth, not 90.
        var together = identity
        for i in 3..<6 { for j in 3..<6 where i != j { together[i * 6 + j] = 0.98 } }
        let correlated = try #require(summary(together, seeds: 30).expectedRange())
        #expect(correlated.translation.upperBound > 1.2 && correlated.translation.lowerBound < 0.78)
        #expect(abs(correlated.rotation.upperBound - independent.rotation.upperBound) < 0.02)
        // A covariance that is not positive definite gives no range rather than a wrong one.
        var broken = identity
        broken[1] = 2; broken[6] = 2
        #expect(summary(broken, seeds: 3).expectedRange() == nil)
    }
}

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

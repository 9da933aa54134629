import CVBridge
import CVBridgeTestReferences
import Foundation
import MarkerKitKernels
import Testing
@testable import MarkerKit

/// The allocation-free Douglas-Peucker against cv::approxPolyDP on every contour the detector sees in
/// real photos and a render: the candidates (four vertices) must be the same.
@Suite struct SimplifyContourTests {
    @Test func quadsAreTheOnesApproxPolyDPFinds() throws {
        var images = [try GrayImage(contentsOf: Fixtures.url("aruco-original-photos/single/image-test.png")),
                      try GrayImage(contentsOf: Fixtures.url("aruco-original-photos/board/image-test.png"))]
        images.append(try SceneRenderer().render(BenchmarkScenes.markers(count: 20, width: 640, height: 480, seed: 3)))
        // Clutter: pages of text and grids of squares, whose contours mostly end past eight vertices.
        images += try BenchmarkScenes.cluttered(count: 10, width: 640, height: 480, frames: 3).map { try SceneRenderer().render($0.scene) }
        var contours = Contours.ContourSet(), binary = GrayImage.empty
        var total = 0, quadsCV = 0, quadsOurs = 0, sameQuads = 0, sameCount = 0
        var ours = [Int32](repeating: 0, count: 16), theirs = [Int32](repeating: 0, count: 16)
        for image in images {
            for window in [3, 13, 23] {
                try AdaptiveThreshold.binary(image, window: window, constant: 7, into: &binary)
                contours.removeAll()
                try Contours.find(in: binary, minPoints: 20, maxPoints: 4 * max(image.width, image.height), into: &contours)
                for index in 0..<contours.count {
                    let length = contours.length(index), epsilon = Double(length) * 0.03
                    let (a, b) = contours.points.withUnsafeBufferPointer { points in
                        let start = points.baseAddress! + 2 * Int(contours.offsets[index])
                        return (ours.withUnsafeMutableBufferPointer { mkk_simplify_contour(start, Int32(length), epsilon, $0.baseAddress, 8) },
                                theirs.withUnsafeMutableBufferPointer { cvb_approx_polygon(start, Int32(length), epsilon, $0.baseAddress, 8) })
                    }
                    total += 1
                    if a == min(b, 9) { sameCount += 1 }
                    if b == 4 { quadsCV += 1 }
                    if a == 4 { quadsOurs += 1 }
                    if a == 4 && b == 4 && sameQuad(Array(ours[0..<8]), Array(theirs[0..<8])) { sameQuads += 1 }
                }
            }
        }
        print("measured: \(total) contours, vertex count the same for \(sameCount); quads: approxPolyDP \(quadsCV), ours \(quadsOurs), the same \(sameQuads)")
        #expect(sameQuads >= quadsCV * 99 / 100)
        #expect(quadsOurs <= quadsCV + quadsCV / 100 + 1)
    }

    /// The same four vertices, whichever vertex either starts at.
    func sameQuad(_ a: [Int32], _ b: [Int32]) -> Bool {
        for shift in 0..<4 {
            var same = true
            for i in 0..<4 {
                let j: Int = (i + shift) % 4
                same = same && a[2 * i] == b[2 * j] && a[2 * i + 1] == b[2 * j + 1]
            }
            if same { return true }
        }
        return false
    }
}

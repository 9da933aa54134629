import CVBridge
import Foundation
import Testing
@testable import MarkerKit

/// The detector's own adaptive threshold (box sums in a reused buffer) gives cv::adaptiveThreshold's
/// binary image pixel for pixel: real photos, a render, and frames smaller than the window.
@Suite struct AdaptiveThresholdTests {
    @Test func pixelForPixelWhatOpenCVGives() throws {
        var random = SeededRandom(seed: 5)
        var images = [try GrayImage(contentsOf: Fixtures.url("aruco-original-photos/single/image-test.png")),
                      try GrayImage(contentsOf: Fixtures.url("aruco-original-photos/board/image-test.png")),
                      try SceneRenderer().render(BenchmarkScenes.markers(count: 10, width: 640, height: 480, seed: 9))]
        for (w, h) in [(5, 4), (1, 30), (31, 1), (24, 23)] {
            images.append(GrayImage(width: w, height: h, pixels: (0..<(w * h)).map { _ in UInt8(random.uniform(0...255)) }))
        }
        for image in images {
            for window in [3, 7, 13, 23, 51] {
                for constant in [7.0, 0, -3.5] {
                    var ours = [UInt8](repeating: 1, count: image.pixels.count), theirs = ours
                    let a = image.pixels.withUnsafeBufferPointer { gray in
                        ours.withUnsafeMutableBufferPointer {
                            cvb_adaptive_threshold(gray.baseAddress, Int32(image.width), Int32(image.height), Int32(image.width), Int32(window), constant, $0.baseAddress)
                        }
                    }
                    let b = image.pixels.withUnsafeBufferPointer { gray in
                        theirs.withUnsafeMutableBufferPointer {
                            cvb_adaptive_threshold_opencv(gray.baseAddress, Int32(image.width), Int32(image.height), Int32(image.width), Int32(window), constant, $0.baseAddress)
                        }
                    }
                    #expect(a == 0 && b == 0)
                    let differ = zip(ours, theirs).filter { $0 != $1 }.count
                    #expect(differ == 0, "\(image.width)x\(image.height), window \(window), constant \(constant): \(differ) pixels differ")
                }
            }
        }
    }
}

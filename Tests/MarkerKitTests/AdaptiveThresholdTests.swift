import CVBridge
import CVBridgeTestReferences
import Foundation
import MarkerKitKernels
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
                            mkk_adaptive_threshold(gray.baseAddress, Int32(image.width), Int32(image.height), Int32(image.width), Int32(window), constant, $0.baseAddress)
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

    /// Several windows in one sweep (the detector's path), in bands of rows as the worker pool splits a
    /// frame: every window's image pixel for pixel what cv::adaptiveThreshold gives, wherever the bands
    /// meet, on frames down to one row and for windows wider than the frame.
    @Test func windowsInOneSweepAndBandsOfRowsGiveOpenCVsPixels() throws {
        var random = SeededRandom(seed: 6)
        var images = [try GrayImage(contentsOf: Fixtures.url("aruco-original-photos/single/image-test.png")),
                      try SceneRenderer().render(BenchmarkScenes.markers(count: 10, width: 1280, height: 720, seed: 4))]
        for (w, h) in [(5, 4), (1, 30), (31, 1), (24, 23), (70, 65)] {
            images.append(GrayImage(width: w, height: h, pixels: (0..<(w * h)).map { _ in UInt8(random.uniform(0...255)) }))
        }
        for image in images {
            for windows in [[3, 13, 23], [7], [23, 3], [51, 5]] {
                for constant in [7.0, -3.5] {
                    var theirs: [UInt8] = []
                    for window in windows {
                        var binary = [UInt8](repeating: 1, count: image.pixels.count)
                        let status = image.pixels.withUnsafeBufferPointer { gray in
                            binary.withUnsafeMutableBufferPointer {
                                cvb_adaptive_threshold_opencv(gray.baseAddress, Int32(image.width), Int32(image.height), Int32(image.width), Int32(window), constant, $0.baseAddress)
                            }
                        }
                        #expect(status == 0)
                        theirs += binary
                    }
                    var ours: [UInt8] = []
                    try AdaptiveThreshold.binaries(image, windows: windows, constant: constant, into: &ours)
                    #expect(ours == theirs, "\(image.width)x\(image.height), windows \(windows), constant \(constant)")
                    // Three bands meeting at random rows.
                    let a = Int(random.uniform(0...Double(image.height))), b = Int(random.uniform(0...Double(image.height)))
                    var banded = [UInt8](repeating: 1, count: theirs.count)
                    let sides = windows.map { Int32($0) }
                    for (begin, end) in [(0, min(a, b)), (min(a, b), max(a, b)), (max(a, b), image.height)] {
                        let status = image.pixels.withUnsafeBufferPointer { gray in
                            banded.withUnsafeMutableBufferPointer {
                                mkk_adaptive_threshold_rows(gray.baseAddress, Int32(image.width), Int32(image.height), Int32(image.width), sides,
                                                            Int32(sides.count), constant, $0.baseAddress, Int32(begin), Int32(end))
                            }
                        }
                        #expect(status == 0)
                    }
                    #expect(banded == theirs, "\(image.width)x\(image.height), windows \(windows), bands split at \(a) and \(b)")
                }
            }
        }
    }
}

import CVBridge
import CVBridgeTestReferences
import MarkerKitKernels
import Testing
@testable import MarkerKit

/// The border follower against OpenCV's contour scanner (cvFindContours, RETR_LIST, every point): the
/// same contours, point for point and in the same order, on noise, blobs, one-pixel lines and real
/// thresholded photos and renders, at sizes down to one pixel; and without holes, the same as OpenCV's
/// contours that its scanner does not flag as holes.
@Suite struct ContourTracingTests {
    struct Traced: Equatable {
        var offsets: [Int32]
        var points: [Int32]
    }

    static func trace(_ image: GrayImage, minPoints: Int = 1, maxPoints: Int = Int(Int32.max), holes: Bool = true, opencv: Bool) -> Traced {
        var found = mkk_contours()
        let status = image.pixels.withUnsafeBufferPointer {
            (opencv ? cvb_find_contours_opencv : mkk_find_contours)($0.baseAddress, Int32(image.width), Int32(image.height),
                                                                    Int32(image.width), Int32(minPoints), Int32(maxPoints), holes ? 1 : 0, &found)
        }
        #expect(status >= 0)
        let offsets = Array(UnsafeBufferPointer(start: found.offsets, count: Int(found.count) + 1))
        return Traced(offsets: offsets, points: Array(UnsafeBufferPointer(start: found.points, count: 2 * Int(offsets.last!))))
    }

    /// Compares with holes and without; returns how many contours OpenCV listed with holes, and without.
    @discardableResult
    static func expectSame(_ image: GrayImage, minPoints: Int = 1, maxPoints: Int = Int(Int32.max), _ what: String) -> (all: Int, outer: Int) {
        var counts: [Int] = []
        for holes in [true, false] {
            let ours = trace(image, minPoints: minPoints, maxPoints: maxPoints, holes: holes, opencv: false)
            let theirs = trace(image, minPoints: minPoints, maxPoints: maxPoints, holes: holes, opencv: true)
            let same = ours == theirs // (compared first: a failing == would print every point)
            #expect(same, "\(what)\(holes ? "" : ", outer borders"): \(ours.offsets.count - 1) contours of \(ours.points.count / 2) points, OpenCV \(theirs.offsets.count - 1) of \(theirs.points.count / 2)")
            counts.append(theirs.offsets.count - 1)
        }
        return (counts[0], counts[1])
    }

    @Test func randomImagesGiveOpenCVsContours() {
        var random = SeededRandom(seed: 11)
        var contours = 0, outer = 0
        for trial in 0..<300 {
            let width = Int.random(in: 1...70, using: &random), height = Int.random(in: 1...50, using: &random)
            var pixels = [UInt8](repeating: 0, count: width * height)
            switch trial % 3 {
            case 0: // salt and pepper of any density
                let density = Double.random(in: 0.05...0.95, using: &random)
                for i in pixels.indices where Double.random(in: 0..<1, using: &random) < density { pixels[i] = 255 }
            case 1: // filled and hollow rectangles, nested and touching the edges
                for _ in 0..<Int.random(in: 1...12, using: &random) {
                    let x0 = Int.random(in: -3..<width, using: &random), y0 = Int.random(in: -3..<height, using: &random)
                    let x1 = x0 + Int.random(in: 0...20, using: &random), y1 = y0 + Int.random(in: 0...20, using: &random)
                    let value: UInt8 = Bool.random(using: &random) ? 255 : 0, hollow = Bool.random(using: &random)
                    for y in max(0, y0)...max(0, min(height - 1, y1)) where y < height {
                        for x in max(0, x0)...max(0, min(width - 1, x1)) where x < width {
                            if !hollow || x == x0 || x == x1 || y == y0 || y == y1 { pixels[y * width + x] = value }
                        }
                    }
                }
            default: // one-pixel lines and isolated pixels (values other than 255 count as region too)
                for _ in 0..<Int.random(in: 1...30, using: &random) {
                    var x = Int.random(in: 0..<width, using: &random), y = Int.random(in: 0..<height, using: &random)
                    for _ in 0..<Int.random(in: 0...25, using: &random) {
                        pixels[y * width + x] = UInt8.random(in: 1...255, using: &random)
                        x = min(width - 1, max(0, x + Int.random(in: -1...1, using: &random)))
                        y = min(height - 1, max(0, y + Int.random(in: -1...1, using: &random)))
                    }
                }
            }
            let counts = Self.expectSame(GrayImage(width: width, height: height, pixels: pixels), "random image \(trial) (\(width)x\(height))")
            contours += counts.all
            outer += counts.outer
        }
        #expect(contours > 3000)
        #expect(outer > 1000 && outer < contours - 1000, "\(outer) of \(contours) contours outer borders")
    }

    @Test func thresholdedPhotosAndRendersGiveOpenCVsContours() throws {
        var images = [try GrayImage(contentsOf: Fixtures.url("aruco-original-photos/single/image-test.png")),
                      try GrayImage(contentsOf: Fixtures.url("aruco-original-photos/board/image-test.png"))]
        images.append(try SceneRenderer().render(BenchmarkScenes.markers(count: 30, width: 1280, height: 720, seed: 5)))
        var binary = GrayImage.empty
        for (number, image) in images.enumerated() {
            for window in [3, 13, 23] {
                try AdaptiveThreshold.binary(image, window: window, constant: 7, into: &binary)
                let counts = Self.expectSame(binary, "image \(number), window \(window)")
                #expect(counts.all > 100 && counts.outer > 50 && counts.outer < counts.all)
                // The length filter the detector uses, and the whole image as one region.
                Self.expectSame(binary, minPoints: 20, maxPoints: 4 * max(image.width, image.height), "image \(number), window \(window), filtered")
            }
        }
        Self.expectSame(GrayImage(width: 40, height: 30, pixels: [UInt8](repeating: 255, count: 1200)), "all region")
        Self.expectSame(GrayImage(width: 40, height: 30, pixels: [UInt8](repeating: 0, count: 1200)), "all background")
    }
}

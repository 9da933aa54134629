import BridgeStatus
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

    /// A random binary image of one of three kinds (by `kind` % 3): salt and pepper of any density; filled
    /// and hollow rectangles, nested and touching the edges; one-pixel lines and isolated pixels.
    static func randomImage(kind: Int, width: Int, height: Int, using random: inout SeededRandom) -> GrayImage {
        var pixels = [UInt8](repeating: 0, count: width * height)
        switch kind % 3 {
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
        return GrayImage(width: width, height: height, pixels: pixels)
    }

    /// Hole borders alone (`MKK_TRACE_HOLES_ONLY`, the detector's second look round a sheet of touching
    /// markers): OpenCV's contours that its scanner flags as holes, point for point; and of a part of an
    /// image (rows a stride apart) the same as of that part copied out.
    @Test func holeBordersAloneAreOpenCVsHoles() throws {
        var random = SeededRandom(seed: 12)
        var holes = 0
        for trial in 0..<200 {
            let width = Int.random(in: 1...70, using: &random), height = Int.random(in: 1...50, using: &random)
            let image = Self.randomImage(kind: trial, width: width, height: height, using: &random)
            func traced(_ binary: UnsafePointer<UInt8>, _ w: Int, _ h: Int, stride: Int, opencv: Bool) -> Traced {
                var found = mkk_contours()
                let status = (opencv ? cvb_find_contours_opencv : mkk_find_contours)(binary, Int32(w), Int32(h), Int32(stride), 1, Int32.max,
                                                                                     MKK_TRACE_HOLES_ONLY, &found)
                #expect(status >= 0)
                let offsets = Array(UnsafeBufferPointer(start: found.offsets, count: Int(found.count) + 1))
                return Traced(offsets: offsets, points: Array(UnsafeBufferPointer(start: found.points, count: 2 * Int(offsets.last!))))
            }
            image.pixels.withUnsafeBufferPointer { pixels in
                let ours = traced(pixels.baseAddress!, width, height, stride: width, opencv: false)
                #expect(ours == traced(pixels.baseAddress!, width, height, stride: width, opencv: true), "trial \(trial): \(width)x\(height)")
                holes += ours.offsets.count - 1
                // A part of the image, traced in place, against a copy of it.
                let x0 = Int.random(in: 0..<width, using: &random), y0 = Int.random(in: 0..<height, using: &random)
                let w = Int.random(in: 1...(width - x0), using: &random), h = Int.random(in: 1...(height - y0), using: &random)
                var part: [UInt8] = []
                for y in y0..<y0 + h { part.append(contentsOf: pixels[(y * width + x0)..<(y * width + x0 + w)]) }
                let inPlace = traced(pixels.baseAddress! + y0 * width + x0, w, h, stride: width, opencv: false)
                let copied = part.withUnsafeBufferPointer { traced($0.baseAddress!, w, h, stride: w, opencv: false) }
                #expect(inPlace == copied, "trial \(trial): part \(w)x\(h) at \(x0),\(y0)")
            }
        }
        #expect(holes > 200)
    }

    @Test func randomImagesGiveOpenCVsContours() {
        var random = SeededRandom(seed: 11)
        var contours = 0, outer = 0
        for trial in 0..<300 {
            let width = Int.random(in: 1...70, using: &random), height = Int.random(in: 1...50, using: &random)
            let image = Self.randomImage(kind: trial, width: width, height: height, using: &random)
            let counts = Self.expectSame(image, "random image \(trial) (\(width)x\(height))")
            contours += counts.all
            outer += counts.outer
        }
        #expect(contours > 3000)
        #expect(outer > 1000 && outer < contours - 1000, "\(outer) of \(contours) contours outer borders")
    }

    /// `images` (of one size) traced together by `mkk_find_contours_together`, each in a new workspace,
    /// image i's hole borders too when `holes[i]`.
    static func traceTogether(_ images: [GrayImage], minPoints: Int = 1, maxPoints: Int = Int(Int32.max), holes: [Bool]) -> [Traced] {
        let mask = holes.enumerated().reduce(Int32(0)) { $0 | ($1.element ? 1 << Int32($1.offset) : 0) }
        let workspaces: [OpaquePointer?] = images.map { _ in mkk_trace_workspace_create() }
        defer { for workspace in workspaces { mkk_trace_workspace_destroy(workspace) } }
        var outs = [mkk_contours](repeating: mkk_contours(), count: images.count)
        let pixels = images.map(\.pixels)
        let status = withPointers(pixels) { binaries in
            mkk_find_contours_together(workspaces, binaries, Int32(images.count), Int32(images[0].width), Int32(images[0].height),
                                       Int32(images[0].width), Int32(minPoints), Int32(maxPoints), mask, &outs)
        }
        #expect(status == 0)
        return outs.map { found in
            let offsets = Array(UnsafeBufferPointer(start: found.offsets, count: Int(found.count) + 1))
            return Traced(offsets: offsets, points: Array(UnsafeBufferPointer(start: found.points, count: 2 * Int(offsets.last!))))
        }
    }

    /// Base addresses of every array in `arrays`, valid inside `body`.
    static func withPointers<R>(_ arrays: [[UInt8]], _ done: [UnsafePointer<UInt8>?] = [], _ body: ([UnsafePointer<UInt8>?]) -> R) -> R {
        guard let next = arrays.first else { return body(done) }
        return next.withUnsafeBufferPointer { withPointers(Array(arrays.dropFirst()), done + [$0.baseAddress], body) }
    }

    /// Images traced together (the detector's threshold windows on one core: their borders a step of each
    /// in turn) give each image the contours it gives traced alone: groups of 1 to 4 random images of one
    /// size, one image in some groups without any border, thresholded renders whose long borders outgrow
    /// the points' first buffer; with holes and without, for every image or some (the detector's narrowest
    /// window alone takes hole borders), with the detector's length filter and without.
    @Test func imagesTracedTogetherGiveTheirOwnContours() throws {
        var random = SeededRandom(seed: 12)
        var contours = 0
        for trial in 0..<120 {
            let width = Int.random(in: 1...90, using: &random), height = Int.random(in: 1...60, using: &random)
            var images = (0..<(trial % 4 + 1)).map { Self.randomImage(kind: trial + $0, width: width, height: height, using: &random) }
            if trial % 5 == 0 { images[trial % images.count] = GrayImage(width: width, height: height, pixels: [UInt8](repeating: 0, count: width * height)) }
            for pattern in 0..<3 {
                let holes = images.indices.map { pattern == 0 || (pattern == 2 && ($0 + trial) % 2 == 0) }
                let together = Self.traceTogether(images, holes: holes)
                let alone = zip(images, holes).map { Self.trace($0, holes: $1, opencv: false) }
                #expect(together == alone, "trial \(trial): \(images.count) images \(width)x\(height), holes \(holes)")
                contours += alone.reduce(0) { $0 + $1.offsets.count - 1 }
            }
        }
        #expect(contours > 5000)
        let render = try SceneRenderer().render(BenchmarkScenes.markers(count: 30, width: 1280, height: 720, seed: 5))
        var binaries: [GrayImage] = []
        for window in [3, 13, 23] {
            var binary = GrayImage.empty
            try AdaptiveThreshold.binary(render, window: window, constant: 7, into: &binary)
            binaries.append(binary)
        }
        for holes in [[true, true, true], [false, false, false], [true, false, false]] {
            for (minPoints, maxPoints) in [(1, Int(Int32.max)), (38, 4 * 1280)] {
                let together = Self.traceTogether(binaries, minPoints: minPoints, maxPoints: maxPoints, holes: holes)
                let alone = zip(binaries, holes).map { Self.trace($0, minPoints: minPoints, maxPoints: maxPoints, holes: $1, opencv: false) }
                #expect(together == alone, "render windows 3, 13, 23, holes \(holes), lengths \(minPoints)...\(maxPoints)")
                #expect(together.allSatisfy { $0.offsets.count > 50 })
            }
        }
    }

    /// No images, more than the tracer takes at once, or a missing workspace: an argument error, not a crash.
    @Test func badImageListsAreRefused() {
        #expect(Contours.togetherMax == Int(MKK_TRACE_TOGETHER_MAX))
        let pixels = [UInt8](repeating: 255, count: 16)
        let workspace = mkk_trace_workspace_create()
        defer { mkk_trace_workspace_destroy(workspace) }
        var outs = [mkk_contours](repeating: mkk_contours(), count: 5)
        pixels.withUnsafeBufferPointer { buffer in
            let binaries = [UnsafePointer<UInt8>?](repeating: buffer.baseAddress, count: 5)
            let workspaces = [OpaquePointer?](repeating: workspace, count: 5)
            for count: Int32 in [0, 5, -1] {
                #expect(mkk_find_contours_together(workspaces, binaries, count, 4, 4, 4, 1, 100, 1, &outs) == BRIDGE_ERR_ARGUMENT.rawValue)
            }
            #expect(mkk_find_contours_together([workspace, nil], binaries, 2, 4, 4, 4, 1, 100, 1, &outs) == BRIDGE_ERR_ARGUMENT.rawValue)
            #expect(mkk_find_contours_together(workspaces, binaries, 1, 4, 4, 4, 1, 100, 1, &outs) == 0)
            #expect(outs[0].count == 1)
        }
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

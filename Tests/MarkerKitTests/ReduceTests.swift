import CVBridge
import Testing
@testable import MarkerKit

/// The detector's own reduction against cv::resize (INTER_AREA for whole factors, bilinear otherwise):
/// the same pixels, on noise and a photo, for factors 2 to 4 and sizes that are and are not multiples.
@Suite struct ReduceTests {
    static func both(_ image: GrayImage, factor: Int) throws -> (ours: [UInt8], opencv: [UInt8]) {
        let width = image.width / factor, height = image.height / factor
        var reduced = GrayImage.empty
        try MarkerDetector.reduce(image, by: factor, into: &reduced)
        let ours = reduced.pixels
        var theirs = [UInt8](repeating: 0, count: width * height)
        image.pixels.withUnsafeBufferPointer { source in
            #expect(theirs.withUnsafeMutableBufferPointer {
                cvb_resize_gray(source.baseAddress, Int32(image.width), Int32(image.height), Int32(image.width), Int32(width), Int32(height), CVB_RESIZE_AREA_WHEN_WHOLE, $0.baseAddress)
            } == 0)
        }
        return (ours, theirs)
    }

    @Test func reductionIsWhatCVResizeGives() throws {
        var random = SeededRandom(seed: 5)
        var images = [try GrayImage(contentsOf: Fixtures.url("aruco-original-photos/single/image-test.png"))]
        for (width, height) in [(64, 48), (97, 61), (1920, 1080), (130, 7)] {
            images.append(GrayImage(width: width, height: height, pixels: (0..<width * height).map { _ in UInt8.random(in: 0...255, using: &random) }))
        }
        var compared = 0
        for image in images {
            for factor in 2...4 where image.width >= factor && image.height >= factor {
                let (ours, theirs) = try Self.both(image, factor: factor)
                let differing = zip(ours, theirs).filter { $0 != $1 }.count
                #expect(differing == 0, "\(image.width)x\(image.height) by \(factor): \(differing) pixels differ")
                compared += ours.count
            }
        }
        #expect(compared > 1_000_000)
    }
}

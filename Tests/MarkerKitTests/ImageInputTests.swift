import CVBridge
import Foundation
import Testing
@testable import MarkerKit

/// Reading image files: special files are refused without being waited on.
@Suite struct ImageInputTests {
    /// Reading a FIFO used to wait in open(2) for a writer that never comes. The bridge now opens
    /// without blocking and refuses what is not a regular file. Should a read block again, a writer
    /// arrives after 10 s (and every second after) and closes at once, so the test fails instead of hanging.
    @Test func readingAFIFOFailsAtOnceInsteadOfWaitingForAWriter() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("x.png").path
        #expect(mkfifo(path, 0o644) == 0)
        DispatchQueue.global().asyncAfter(deadline: .now() + 10) {
            for _ in 0..<60 {
                let writer = open(path, O_WRONLY | O_NONBLOCK)
                if writer >= 0 { close(writer) }
                sleep(1)
            }
        }
        let clock = ContinuousClock()
        let started = clock.now
        #expect(throws: InputCatalog.notARegularFile(path, "a FIFO")) { try GrayImage(contentsOf: URL(fileURLWithPath: path)) }
        #expect(clock.now - started < .seconds(5), "reading a FIFO waited for a writer")
        // The bridge on its own, without the Swift side's checks: fails, and at once.
        var image = cvb_image()
        #expect(cvb_image_read(path, 1, &image) < 0)
        #expect(clock.now - started < .seconds(5), "cvb_image_read waited for a writer")
    }
}

/// Every image format OpenCV 4.6 reads on Debian, written at test time from ArUco's test photo and
/// read back: the same gray picture and the same markers with the same corners as from the PNG.
@Suite struct ImageFormatTests {
    static let photo = Fixtures.url("aruco-original-photos/single/image-test.png")

    /// Samples (UInt8, UInt16 or Float; gray, BGR or BGRA) encoded as `ext` by OpenCV's imencode: the
    /// files cameras and other programs write.
    static func encode<T>(_ samples: [T], width: Int, height: Int, channels: Int, as ext: String, parameters: [Int32] = []) throws -> Data {
        let size = MemoryLayout<T>.size
        precondition(samples.count == width * height * channels && [1, 2, 4].contains(size))
        var out = cvb_image()
        let status = samples.withUnsafeBytes { raw in
            parameters.withUnsafeBufferPointer { options in
                cvb_image_encode_samples(raw.baseAddress, Int32(width), Int32(height), Int32(width * channels * size), Int32(channels),
                                         Int32(8 * size), "." + ext, options.baseAddress, Int32(parameters.count), &out)
            }
        }
        defer { cvb_image_release(&out) }
        guard status >= 0, let data = out.data else { throw MarkerKitError.internalFailure("encode .\(ext): \(String(cString: cvb_last_error()))") }
        return Data(bytes: data, count: Int(out.width))
    }

    struct Variant: CustomStringConvertible {
        let name: String
        let data: Data
        /// Whether the pixels come back exactly (else: JPEG, lossy WebP).
        let lossless: Bool
        /// Whether the file is gray (read as gray it must then give the photo's gray exactly).
        var gray = false
        var description: String { name }
    }

    /// The photo's gray and BGR pixels (640 x 480), as detection sees them.
    static func pixels() throws -> (width: Int, height: Int, bgr: [UInt8], gray: [UInt8]) {
        let frame = try Frame(contentsOf: photo, format: .bgr8)
        return (frame.width, frame.height, frame.bytes, try Grayscale.image(from: frame).pixels)
    }

    static func variants() throws -> [Variant] {
        let (w, h, bgr, gray) = try pixels()
        // BGRA with an alpha that varies (it must be ignored, not composited).
        var bgra: [UInt8] = []
        bgra.reserveCapacity(w * h * 4)
        for i in 0..<(w * h) { bgra += [bgr[3 * i], bgr[3 * i + 1], bgr[3 * i + 2], UInt8(truncatingIfNeeded: i * 7)] }
        let gray16 = gray.map { UInt16($0) * 257 }, bgr16 = bgr.map { UInt16($0) * 257 }
        let bgra16 = bgra.enumerated().map { $0.offset % 4 == 3 ? UInt16(65535) : UInt16($0.element) * 257 }
        // 12-bit sensor values in the low bits, on a dark floor, as many industrial cameras store them.
        let gray12 = gray.map { 100 + UInt16($0) * 15 }
        let grayFloat = gray.map { Float($0) / 255 }, bgrFloat = bgr.map { Float($0) / 255 }
        func v(_ name: String, lossless: Bool = true, gray: Bool = false, _ data: Data) -> Variant {
            Variant(name: name, data: data, lossless: lossless, gray: gray)
        }
        return [
            v("gray8.png", gray: true, try encode(gray, width: w, height: h, channels: 1, as: "png")),
            v("rgb.png", try encode(bgr, width: w, height: h, channels: 3, as: "png")),
            v("rgba.png", try encode(bgra, width: w, height: h, channels: 4, as: "png")),
            v("gray16.png", gray: true, try encode(gray16, width: w, height: h, channels: 1, as: "png")),
            v("rgb16.png", try encode(bgr16, width: w, height: h, channels: 3, as: "png")),
            v("gray12.png", gray: true, try encode(gray12, width: w, height: h, channels: 1, as: "png")),
            v("rgb.jpg", lossless: false, try encode(bgr, width: w, height: h, channels: 3, as: "jpg", parameters: [1, 95])),
            v("gray.jpg", lossless: false, try encode(gray, width: w, height: h, channels: 1, as: "jpg", parameters: [1, 95])),
            v("gray8.tif", gray: true, try encode(gray, width: w, height: h, channels: 1, as: "tif")),
            v("rgb.tif", try encode(bgr, width: w, height: h, channels: 3, as: "tif")),
            v("gray16.tif", gray: true, try encode(gray16, width: w, height: h, channels: 1, as: "tif")),
            v("gray12.tif", gray: true, try encode(gray12, width: w, height: h, channels: 1, as: "tif")),
            v("rgba.tif", try encode(bgra, width: w, height: h, channels: 4, as: "tif")),
            v("rgba16.tif", try encode(bgra16, width: w, height: h, channels: 4, as: "tif")),
            v("gray.bmp", gray: true, try encode(gray, width: w, height: h, channels: 1, as: "bmp")),
            v("rgb.bmp", try encode(bgr, width: w, height: h, channels: 3, as: "bmp")),
            v("gray.pgm", gray: true, try encode(gray, width: w, height: h, channels: 1, as: "pgm")),
            v("gray16.pgm", gray: true, try encode(gray16, width: w, height: h, channels: 1, as: "pgm")),
            v("rgb.ppm", try encode(bgr, width: w, height: h, channels: 3, as: "ppm")),
            // IMWRITE_WEBP_QUALITY (64) above 100 is lossless.
            v("lossless.webp", try encode(bgr, width: w, height: h, channels: 3, as: "webp", parameters: [64, 101])),
            v("lossy.webp", lossless: false, try encode(bgr, width: w, height: h, channels: 3, as: "webp", parameters: [64, 90])),
            v("gray.exr", gray: true, try encode(grayFloat, width: w, height: h, channels: 1, as: "exr")),
            v("rgb.exr", try encode(bgrFloat, width: w, height: h, channels: 3, as: "exr")),
            v("gray.pfm", gray: true, try encode(grayFloat, width: w, height: h, channels: 1, as: "pfm")),
            v("gray-float.tif", gray: true, try encode(grayFloat, width: w, height: h, channels: 1, as: "tif")),
        ]
    }

    /// What `detect` reports for one file.
    static func detect(_ url: URL) throws -> DetectionReport.FrameResult {
        var job = DetectionJob()
        var results: [DetectionReport.FrameResult] = []
        _ = try job.run(.image(url)) { results.append($0) }
        return try #require(results.first)
    }

    @Test func everyFormatGivesTheSamePictureAndTheSameMarkersAsThePNG() throws {
        let dir = try TemporaryDirectory()
        let (_, _, _, gray) = try Self.pixels()
        let reference = try Self.detect(Self.photo)
        #expect(reference.markers.map(\.id) == [101, 601, 701, 801, 901, 1001])
        for variant in try Self.variants() {
            let url = dir.file(variant.name)
            try variant.data.write(to: url)
            // Read in colour (as detect, track and undistort read) and as gray (as calibrate reads).
            let seen = try Grayscale.image(from: Frame(contentsOf: url, format: .bgr8))
            #expect(seen.width == 640 && seen.height == 480, "\(variant)")
            let worst = zip(seen.pixels, gray).map { abs(Int($0) - Int($1)) }.max() ?? 255
            #expect(variant.lossless ? worst == 0 : worst <= 20, "\(variant): pixels differ by up to \(worst)")
            if variant.gray && variant.lossless { #expect(try GrayImage(contentsOf: url).pixels == gray, "\(variant) read as gray") }
            let result = try Self.detect(url)
            #expect(result.width == 640 && result.height == 480, "\(variant)")
            #expect(result.markers.map(\.id) == reference.markers.map(\.id), "\(variant): \(result.markers.map(\.id))")
            guard result.markers.count == reference.markers.count else { continue }
            var largest = 0.0
            for (found, expected) in zip(result.markers, reference.markers) {
                for k in 0..<4 { largest = max(largest, found.quad[k].distance(to: expected.quad[k])) }
            }
            #expect(variant.lossless ? largest == 0 : largest < 0.1, "\(variant): corners moved by up to \(largest) px")
        }
    }

    /// 16-bit to 8 bits: the top byte when the values reach 4096 (the full range), else stretched from
    /// the darkest to the brightest value (10- and 12-bit cameras storing the sensor's value as is);
    /// floating point as 0-1.
    @Test func sixteenBitAndFloatPicturesBecomeEightBitsByTheDocumentedRule() throws {
        let dir = try TemporaryDirectory()
        let cases: [(values: [UInt16], expected: [UInt8])] = [
            ([100, 1100, 4000, 4000], [0, 65, 255, 255]),        // below 4096: stretched
            ([100, 1100, 4095, 100], [0, 64, 255, 0]),
            ([100, 1100, 4096, 100], [0, 4, 16, 0]),             // reaches 4096: top byte
            ([0x1234, 0x8000, 0xFFFF, 0x00FF], [0x12, 0x80, 0xFF, 0x00]),
            ([500, 500, 500, 500], [0, 0, 0, 0]),                // flat
        ]
        for (number, c) in cases.enumerated() {
            for ext in ["png", "tif", "pgm"] {
                let url = dir.file("\(number).\(ext)")
                try Self.encode(c.values, width: 2, height: 2, channels: 1, as: ext).write(to: url)
                #expect(try GrayImage(contentsOf: url).pixels == c.expected, "\(c.values) as .\(ext) read as gray")
                let bgr = try Frame(contentsOf: url, format: .bgr8)
                #expect(bgr.bytes == c.expected.flatMap { [$0, $0, $0] }, "\(c.values) as .\(ext) read in colour")
            }
        }
        let url = dir.file("f.exr")
        try Self.encode([Float(0), 0.25, 1, 2, -1, 0.5], width: 3, height: 2, channels: 1, as: "exr").write(to: url)
        #expect(try GrayImage(contentsOf: url).pixels == [0, 64, 255, 255, 0, 128])
    }
}

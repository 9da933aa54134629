import BridgeStatus
import CVBridge
import CVBridgeTestReferences
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
        #expect(throws: PathKind.notARegularFile(path, "a FIFO")) { try GrayImage(contentsOf: URL(fileURLWithPath: path)) }
        #expect(clock.now - started < .seconds(5), "reading a FIFO waited for a writer")
        // The bridge on its own, without the Swift side's checks: fails, and at once.
        var image = cvb_image()
        #expect(cvb_image_read(path, 1, &image, nil) < 0)
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
        guard status >= 0, let data = out.data else { throw MarkerKitError.internalFailure("encode .\(ext): \(String(cString: bridge_last_error()))") }
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
            v("rgb.jpg", lossless: false, try encode(bgr, width: w, height: h, channels: 3, as: "jpg", parameters: [CVB_IMWRITE_JPEG_QUALITY.rawValue, 95])),
            v("gray.jpg", lossless: false, try encode(gray, width: w, height: h, channels: 1, as: "jpg", parameters: [CVB_IMWRITE_JPEG_QUALITY.rawValue, 95])),
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
            v("lossless.webp", try encode(bgr, width: w, height: h, channels: 3, as: "webp", parameters: [CVB_IMWRITE_WEBP_QUALITY.rawValue, 101])),
            v("lossy.webp", lossless: false, try encode(bgr, width: w, height: h, channels: 3, as: "webp", parameters: [CVB_IMWRITE_WEBP_QUALITY.rawValue, 90])),
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
            if variant.gray && variant.lossless {
                let same = try GrayImage(contentsOf: url).pixels == gray // a Bool: Testing would diff 307,200 values
                #expect(same, "\(variant) read as gray")
            }
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

/// Orientation tags (EXIF in JPEG, PNG and WebP, a TIFF's own): the picture is read as viewers show
/// it, and the frame says which tag it had.
@Suite struct ImageOrientationTests {
    /// How a viewer shows a picture stored with orientation `tag`: mirror first, then clockwise turns.
    static func shown(_ tag: Int) throws -> FrameTransform {
        let (degrees, mirror) = [(0, false), (0, true), (180, false), (180, true), (270, true), (90, false), (90, true), (270, false)][tag - 1]
        return try FrameTransform(rotate: degrees, mirror: mirror)
    }

    /// The picture a camera stores for `upright` when it writes orientation `tag`.
    static func stored(_ upright: Frame, tag: Int) throws -> Frame {
        let show = try shown(tag)
        // Mirrored ones are their own inverse; a turn is undone by the opposite turn.
        let inverse = show.mirror ? show : try FrameTransform(rotate: (360 - 90 * show.quarterTurns) % 360, mirror: false)
        let frame = inverse.apply(upright)
        let undone = show.apply(frame).bytes == upright.bytes // a Bool: Testing would diff 921,600 bytes
        #expect(undone, "the transforms of tag \(tag) undo each other")
        return frame
    }

    /// A TIFF structure holding one orientation entry, as the EXIF block of a JPEG, PNG or WebP.
    static func exifBlock(_ tag: Int, bigEndian: Bool = true) -> [UInt8] {
        func u16(_ v: Int) -> [UInt8] { bigEndian ? [UInt8(v >> 8), UInt8(v & 0xFF)] : [UInt8(v & 0xFF), UInt8(v >> 8)] }
        func u32(_ v: Int) -> [UInt8] { bigEndian ? u16(v >> 16) + u16(v & 0xFFFF) : u16(v & 0xFFFF) + u16(v >> 16) }
        return (bigEndian ? Array("MM".utf8) : Array("II".utf8)) + u16(42) + u32(8) + u16(1)
            + u16(0x0112) + u16(3) + u32(1) + u16(tag) + u16(0) + u32(0)
    }

    /// A JPEG with an APP1 EXIF segment right after its start, as phones write it.
    static func jpeg(_ data: Data, tag: Int, bigEndian: Bool = true) -> Data {
        let body = Array("Exif".utf8) + [0, 0] + exifBlock(tag, bigEndian: bigEndian)
        let segment: [UInt8] = [0xFF, 0xE1, UInt8((body.count + 2) >> 8), UInt8((body.count + 2) & 0xFF)] + body
        return data.prefix(2) + Data(segment) + data.dropFirst(2)
    }

    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }

    static func bigEndian32(_ v: Int) -> [UInt8] { [UInt8(v >> 24 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
    static func littleEndian32(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 24 & 0xFF)] }

    /// A PNG with an eXIf chunk before its first IDAT.
    static func png(_ data: Data, tag: Int) -> Data {
        let bytes = [UInt8](data)
        var i = 8
        while i + 8 <= bytes.count && Array(bytes[(i + 4)..<(i + 8)]) != Array("IDAT".utf8) {
            i += 12 + (Int(bytes[i]) << 24 | Int(bytes[i + 1]) << 16 | Int(bytes[i + 2]) << 8 | Int(bytes[i + 3]))
        }
        let typed = Array("eXIf".utf8) + exifBlock(tag)
        let chunk = bigEndian32(typed.count - 4) + typed + bigEndian32(Int(crc32(typed)))
        return Data(bytes[..<i] + chunk + bytes[i...])
    }

    /// A WebP in the extended format (VP8X, EXIF flag) with an EXIF chunk after the picture.
    static func webp(_ data: Data, tag: Int, width: Int, height: Int) -> Data {
        let body = [UInt8](data.dropFirst(12)) // the picture's chunks, after "RIFF" size "WEBP"
        let vp8x = Array("VP8X".utf8) + littleEndian32(10) + [0x08, 0, 0, 0]
            + Array(littleEndian32(width - 1).prefix(3)) + Array(littleEndian32(height - 1).prefix(3))
        let block = exifBlock(tag)
        let exif = Array("EXIF".utf8) + littleEndian32(block.count) + block + (block.count % 2 == 1 ? [0] : [])
        let payload = Array("WEBP".utf8) + vp8x + body + exif
        return Data(Array("RIFF".utf8) + littleEndian32(payload.count) + payload)
    }

    /// A TIFF (as OpenCV writes it) with an orientation entry added to its first directory: the
    /// directory is copied, with the entry, to the end of the file.
    static func tiff(_ data: Data, tag: Int) throws -> Data {
        var bytes = [UInt8](data)
        let little = bytes[0] == UInt8(ascii: "I")
        func u16(_ i: Int) -> Int { little ? Int(bytes[i]) | Int(bytes[i + 1]) << 8 : Int(bytes[i]) << 8 | Int(bytes[i + 1]) }
        func u32(_ i: Int) -> Int { little ? u16(i) | u16(i + 2) << 16 : u16(i) << 16 | u16(i + 2) }
        func put16(_ v: Int) -> [UInt8] { little ? [UInt8(v & 0xFF), UInt8(v >> 8)] : [UInt8(v >> 8), UInt8(v & 0xFF)] }
        func put32(_ v: Int) -> [UInt8] { little ? put16(v & 0xFFFF) + put16(v >> 16) : put16(v >> 16) + put16(v & 0xFFFF) }
        let directory = u32(4), count = u16(directory)
        var entries = (0..<count).map { Array(bytes[(directory + 2 + 12 * $0)..<(directory + 14 + 12 * $0)]) }
        try #require(!entries.contains { Array($0.prefix(2)) == put16(0x0112) }, "OpenCV wrote no orientation")
        entries.append(put16(0x0112) + put16(3) + put32(1) + put16(tag) + put16(0))
        entries.sort { (little ? Int($0[0]) | Int($0[1]) << 8 : Int($0[0]) << 8 | Int($0[1])) < (little ? Int($1[0]) | Int($1[1]) << 8 : Int($1[0]) << 8 | Int($1[1])) }
        let next = Array(bytes[(directory + 2 + 12 * count)..<(directory + 6 + 12 * count)])
        if bytes.count % 2 == 1 { bytes.append(0) }
        let moved = bytes.count
        bytes += put16(entries.count) + entries.flatMap { $0 } + next
        bytes.replaceSubrange(4..<8, with: put32(moved))
        return Data(bytes)
    }

    static func upright() throws -> Frame { try Frame(contentsOf: ImageFormatTests.photo, format: .bgr8) }

    /// Every tag 1-8 in the lossless containers: the picture comes back exactly upright, and the
    /// source says the tag was applied. OpenCV's TIFF decoder turns TIFFs itself; the rest are turned here.
    @Test(arguments: ["png", "webp", "tif"])
    func losslessPicturesComeBackUprightForEveryTag(_ ext: String) throws {
        let dir = try TemporaryDirectory()
        let upright = try Self.upright()
        for tag in 1...8 {
            let stored = try Self.stored(upright, tag: tag)
            let (w, h) = (stored.width, stored.height)
            let plain = try ImageFormatTests.encode(stored.bytes, width: w, height: h, channels: 3, as: ext,
                                                    parameters: ext == "webp" ? [CVB_IMWRITE_WEBP_QUALITY.rawValue, 101] : [])
            let tagged = switch ext {
            case "png": Self.png(plain, tag: tag)
            case "webp": Self.webp(plain, tag: tag, width: w, height: h)
            default: try Self.tiff(plain, tag: tag)
            }
            let url = dir.file("\(tag).\(ext)")
            try tagged.write(to: url)
            var source = ImageFileSource(files: [url])
            let frame = try #require(try source.next())
            #expect(frame.frame.width == 640 && frame.frame.height == 480, ".\(ext) tag \(tag)")
            let same = frame.frame.bytes == upright.bytes
            #expect(same, ".\(ext) tag \(tag): the picture is upright")
            #expect(frame.orientation == ImageOrientation(exif: tag, applied: true), ".\(ext) tag \(tag)")
            // Read as gray (as calibrate reads) it is upright too.
            #expect(try GrayImage(contentsOf: url).width == 640, ".\(ext) tag \(tag) as gray")
        }
    }

    /// Phone JPEGs: EXIF in either byte order; detection finds the upright photo's markers at the same
    /// corners (JPEG's own loss aside) and reports the tag.
    @Test func phoneJPEGsAreDetectedAsShownAndSaySo() throws {
        let dir = try TemporaryDirectory()
        let upright = try Self.upright()
        let reference = try ImageFormatTests.detect(ImageFormatTests.photo)
        for tag in 1...8 {
            for bigEndian in [true, false] {
                let stored = try Self.stored(upright, tag: tag)
                let url = dir.file("\(tag)-\(bigEndian).jpg")
                try Self.jpeg(try stored.encoded(as: "jpg"), tag: tag, bigEndian: bigEndian).write(to: url)
                let result = try ImageFormatTests.detect(url)
                #expect(result.width == 640 && result.height == 480, "tag \(tag)")
                #expect(result.orientation == ImageOrientation(exif: tag, applied: true), "tag \(tag)")
                #expect(result.markers.map(\.id) == reference.markers.map(\.id), "tag \(tag): \(result.markers.map(\.id))")
                guard result.markers.count == reference.markers.count else { continue }
                let moved = zip(result.markers, reference.markers).flatMap { found, expected in
                    (0..<4).map { found.quad[$0].distance(to: expected.quad[$0]) }
                }.max() ?? 0
                #expect(moved < 0.1, "tag \(tag): corners moved by \(moved) px")
            }
        }
    }

    /// No tag: no orientation said. A value that is no orientation (9) is reported, not applied.
    @Test func untaggedAndInvalidTags() throws {
        let dir = try TemporaryDirectory()
        let upright = try Self.upright()
        let png = try upright.encoded(as: "png")
        for (name, data, expected) in [("plain.png", png, nil), ("nine.png", Self.png(png, tag: 9), ImageOrientation(exif: 9, applied: false))] {
            let url = dir.file(name)
            try data.write(to: url)
            var source = ImageFileSource(files: [url])
            let frame = try #require(try source.next())
            #expect(frame.orientation == expected, "\(name)")
            let same = frame.frame.bytes == upright.bytes
            #expect(same, "\(name) as stored")
        }
        // Neither a video's nor a camera's frames carry one.
        #expect(SourcedFrame.empty.orientation == nil)
    }

    /// The hand-written JSON line says what JSONEncoder says, `orientation` included.
    @Test func theJSONLineSaysTheOrientation() throws {
        let result = DetectionReport.FrameResult(source: "phone.jpg", index: 0, width: 480, height: 640, markers: [],
                                                 orientation: ImageOrientation(exif: 6, applied: true))
        let line = String(decoding: try result.jsonLine(), as: UTF8.self)
        #expect(line == "{\"dictionary\":\"DICT_ARUCO_ORIGINAL\",\"height\":640,\"index\":0,\"markers\":[],\"orientation\":{\"applied\":true,\"exif\":6},\"source\":\"phone.jpg\",\"width\":480}\n")
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        #expect(String(decoding: try encoder.encode(result), as: UTF8.self) + "\n" == line)
        let back = try JSONDecoder().decode(DetectionReport.FrameResult.self, from: Data(line.utf8))
        #expect(back.orientation == result.orientation)
        let untagged = DetectionReport.FrameResult(source: "a.png", index: 0, width: 1, height: 1, markers: [])
        #expect(!String(decoding: try untagged.jsonLine(), as: UTF8.self).contains("orientation"))
    }

    /// The tag reader is a parser of untrusted bytes: on every prefix of a tagged file of each kind and
    /// on 20,000 mutated copies it stays inside the bytes (each in a buffer of exactly its size, so
    /// `make sanitize`'s AddressSanitizer sees any read past it). A libFuzzer run of the same function
    /// (35 million inputs) found nothing.
    @Test func theTagReaderStaysInsideTheBytes() throws {
        let small = Frame(width: 16, height: 8, stride: 48, format: .bgr8, bytes: (0..<384).map { UInt8($0 % 251) })
        let files: [Data] = [
            Self.jpeg(try small.encoded(as: "jpg"), tag: 6), Self.jpeg(try small.encoded(as: "jpg"), tag: 6, bigEndian: false),
            Self.png(try small.encoded(as: "png"), tag: 6),
            Self.webp(try ImageFormatTests.encode(small.bytes, width: 16, height: 8, channels: 3, as: "webp", parameters: [CVB_IMWRITE_WEBP_QUALITY.rawValue, 101]), tag: 6, width: 16, height: 8),
            try Self.tiff(try ImageFormatTests.encode(small.bytes, width: 16, height: 8, channels: 3, as: "tif"), tag: 6),
        ]
        func orientation(_ bytes: ArraySlice<UInt8>) -> Int32 {
            let exact = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: bytes.count)
            defer { exact.deallocate() }
            _ = exact.initialize(from: bytes)
            return cvb_image_orientation(exact.baseAddress, Int32(bytes.count))
        }
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func random(_ bound: Int) -> Int { // SplitMix64: the same inputs every run
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return Int((z ^ (z >> 31)) % UInt64(bound))
        }
        for file in files {
            let bytes = [UInt8](file)
            #expect(orientation(bytes[...]) == 6, "\(bytes.prefix(4))")
            for count in 1..<bytes.count { #expect(orientation(bytes[..<count]) >= 0) }
            for _ in 0..<4000 {
                var mutated = bytes
                for _ in 0..<(1 + random(4)) { mutated[random(min(mutated.count, 200))] = UInt8(random(256)) }
                #expect(orientation(mutated[..<(1 + random(mutated.count))]) >= 0)
            }
        }
    }
}

import BridgeStatus
import CVBridge
import CVBridgeTestReferences
import Foundation
import Testing
@testable import MarkerKit

/// MarkerKit's JPEG decoder (libjpeg-turbo with kept state, `Sources/JPEGDecode`) against OpenCV's
/// `imdecode`, on the repository's JPEGs, the real photos and the JPEGs webcams send; damaged frames; and
/// its memory over a stream.
@Suite struct JPEGDecoderTests {
    /// OpenCV's `imdecode` of `jpeg` as gray or BGR, rows packed.
    static func opencv(_ jpeg: Data, color: Bool) throws -> Frame {
        var out = cvb_image()
        let status = jpeg.withUnsafeBytes { cvb_imdecode_opencv($0.bindMemory(to: UInt8.self).baseAddress, Int32($0.count), color ? 3 : 1, &out) }
        defer { cvb_image_release(&out) }
        guard status >= 0, let data = out.data else { throw MarkerKitError.internalFailure("imdecode: \(String(cString: bridge_last_error()))") }
        return Frame(width: Int(out.width), height: Int(out.height), stride: Int(out.stride), format: color ? .bgr8 : .gray8,
                     bytes: Array(UnsafeBufferPointer(start: data, count: Int(out.stride * out.height))))
    }

    /// `frame` (gray or BGR) as a JPEG: luma sampled `luma` times the chroma (2x1 is 4:2:2, 2x2 4:2:0).
    static func jpeg(_ frame: Frame, luma: (Int, Int) = (2, 1), quality: Int = 90, restartRows: Int = 0) throws -> Data {
        var out = cvb_image()
        let status = frame.bytes.withUnsafeBufferPointer {
            cvb_jpeg_encode_sampled($0.baseAddress, Int32(frame.width), Int32(frame.height), Int32(frame.stride), Int32(frame.format.channels),
                                    Int32(luma.0), Int32(luma.1), Int32(quality), Int32(restartRows), &out)
        }
        defer { cvb_image_release(&out) }
        guard status >= 0, let data = out.data else { throw MarkerKitError.internalFailure("encode JPEG: \(String(cString: bridge_last_error()))") }
        return Data(bytes: data, count: Int(out.width))
    }

    /// A 640x480 colour picture with detail in every channel: the fixture photo's gray in green, ramps in
    /// blue and red.
    static func colourPicture() throws -> Frame {
        let gray = try Frame(contentsOf: Fixtures.url("aruco-original-photos/single/image-test.png"), format: .gray8)
        var bytes = [UInt8](repeating: 0, count: gray.width * gray.height * 3)
        for y in 0..<gray.height {
            for x in 0..<gray.width {
                let i = y * gray.width + x
                bytes[3 * i] = UInt8(x * 255 / gray.width)
                bytes[3 * i + 1] = gray.bytes[i]
                bytes[3 * i + 2] = UInt8((y * 7 + x) % 256)
            }
        }
        return Frame(width: gray.width, height: gray.height, stride: gray.width * 3, format: .bgr8, bytes: bytes)
    }

    static func decode(_ jpeg: Data, _ decoder: JPEGDecoder, width: Int, height: Int, color: Bool) throws -> Frame {
        var frame = Frame.empty
        try jpeg.withUnsafeBytes { try decoder.decode($0, width: width, height: height, color: color, into: &frame) }
        return frame
    }

    /// The largest difference between two frames' samples (bytes compared first: most are identical).
    static func largestDifference(_ a: Frame, _ b: Frame) -> Int {
        guard a.width == b.width, a.height == b.height, a.format == b.format, a.bytes.count == b.bytes.count else { return .max }
        let same = a.bytes.withUnsafeBytes { x in b.bytes.withUnsafeBytes { y in memcmp(x.baseAddress!, y.baseAddress!, x.count) == 0 } }
        return same ? 0 : zip(a.bytes, b.bytes).reduce(0) { max($0, abs(Int($1.0) - Int($1.1))) }
    }

    /// Gray and BGR as OpenCV decodes them, within one level (in fact identical: the same libjpeg-turbo, the
    /// same accurate integer IDCT and upsampling), and `imdecode` of a JPEG it wrote.
    func expectOpenCVsPixels(_ jpeg: Data, _ name: String, decoder: JPEGDecoder) throws {
        let reference = try Self.opencv(jpeg, color: false)
        for color in [false, true] {
            let theirs = color ? try Self.opencv(jpeg, color: true) : reference
            let ours = try Self.decode(jpeg, decoder, width: reference.width, height: reference.height, color: color)
            let difference = Self.largestDifference(ours, theirs)
            #expect(difference <= 1, "\(name) \(color ? "BGR" : "gray"): \(difference) levels from imdecode")
        }
    }

    @Test func theRepositorysAndTheRealPhotosJPEGsDecodeAsOpenCVDecodesThem() throws {
        let decoder = try JPEGDecoder()
        let chessboards = ["chessboard-opencv-9x6", "chessboard-opencv-9x6-right"].flatMap { folder in
            (try? FileManager.default.contentsOfDirectory(at: Fixtures.url(folder), includingPropertiesForKeys: nil)) ?? []
        }.filter { $0.pathExtension == "jpg" }
        #expect(chessboards.count == 26)
        // The photos in the repository (with ../shared, all of them).
        let files = try (RealPhotos.shared == nil ? RealPhotos.licensed() : RealPhotos.expected()).map(\.file)
        let photos = try files.filter { $0.hasSuffix(".jpg") }.map(RealPhotos.url)
        #expect(photos.count >= 5)
        for url in (chessboards + photos).sorted(by: { $0.path < $1.path }) {
            try expectOpenCVsPixels(Data(contentsOf: url), url.lastPathComponent, decoder: decoder)
        }
    }

    /// What webcams send: YCbCr 4:2:2 (and 4:2:0, 4:4:4, one-component gray), also with restart markers, and
    /// without Huffman tables (MJPEG's convention: the standard tables are meant).
    @Test(arguments: [(2, 1), (2, 2), (1, 1), (0, 0)]) func webcamSamplings(luma: (Int, Int)) throws {
        let decoder = try JPEGDecoder()
        let picture = try Self.colourPicture()
        let gray = try Grayscale.image(from: picture)
        let source = luma == (0, 0) ? Frame(width: 640, height: 480, stride: 640, format: .gray8, bytes: gray.pixels) : picture
        let jpeg = try Self.jpeg(source, luma: luma == (0, 0) ? (1, 1) : luma)
        try expectOpenCVsPixels(jpeg, "\(luma)", decoder: decoder)
        try expectOpenCVsPixels(try Self.jpeg(source, luma: luma == (0, 0) ? (1, 1) : luma, restartRows: 1), "\(luma) with restarts", decoder: decoder)
        for color in [false, true] {
            let plain = try Self.decode(jpeg, decoder, width: 640, height: 480, color: color)
            let tableless = try Self.decode(Self.withoutHuffmanTables(jpeg), decoder, width: 640, height: 480, color: color)
            #expect(tableless.bytes == plain.bytes, "without DHT, \(luma)")
        }
    }

    /// `jpeg` with its DHT segments taken out: libjpeg-turbo then uses the standard tables, which is what
    /// an encoder that leaves them out (a webcam) used.
    static func withoutHuffmanTables(_ jpeg: Data) -> Data {
        let bytes = [UInt8](jpeg)
        var out = [UInt8](bytes[0..<2])
        var i = 2
        while i + 4 <= bytes.count, bytes[i] == 0xFF {
            let marker = bytes[i + 1], length = Int(bytes[i + 2]) << 8 | Int(bytes[i + 3])
            if marker == 0xDA { break } // start of scan: the rest is data
            if marker != 0xC4 { out += bytes[i..<(i + 2 + length)] }
            i += 2 + length
        }
        return Data(out + bytes[i...])
    }

    /// Logitech's C270 and others put a few stray bytes before restart markers in every frame; libjpeg
    /// warns ("Corrupt JPEG data: 1 extraneous bytes before marker 0xd4") and the picture is whole. Such
    /// frames decode to the clean frame's pixels, the warnings counted; a frame that lacks only its
    /// end-of-image marker decodes too.
    @Test func strayBytesBetweenSegmentsAndAMissingEndAreTolerated() throws {
        let decoder = try JPEGDecoder()
        let picture = try Self.colourPicture()
        let clean = try Self.jpeg(picture, restartRows: 2)
        var bytes = [UInt8](clean), stray = 0
        var i = bytes.count - 2
        while i > 2 { // before every third restart marker (FF D0-D7), from the end so that indices hold
            if bytes[i] == 0xFF, (0xD0...0xD7).contains(bytes[i + 1]) {
                stray += 1
                if stray % 3 == 0 { bytes.insert(contentsOf: [0x12, 0x34, 0x56], at: i) }
            }
            i -= 1
        }
        #expect(stray > 10)
        for color in [false, true] {
            let expected = try Self.decode(clean, decoder, width: 640, height: 480, color: color)
            #expect(decoder.warnings == 0 && !decoder.missingEnd)
            let withStray = try Self.decode(Data(bytes), decoder, width: 640, height: 480, color: color)
            // Not one warning per insertion: libjpeg-turbo does not warn at every restart whose stray bytes
            // its bit reader had already taken in with the data (6 warnings for the 9 insertions here).
            #expect(decoder.warnings > 0 && withStray.bytes == expected.bytes, "\(decoder.warnings) warnings")
            let withoutEnd = try Self.decode(clean.dropLast(2), decoder, width: 640, height: 480, color: color)
            #expect(decoder.missingEnd && withoutEnd.bytes == expected.bytes)
        }
    }

    /// Frames cut short anywhere, damaged, of another size, or not JPEGs at all are errors with libjpeg's
    /// reason, never a crash; random bytes a few thousand times.
    @Test func truncatedDamagedAndGarbageFramesAreErrors() throws {
        let decoder = try JPEGDecoder()
        let jpeg = try Self.jpeg(try Self.colourPicture())
        var frame = Frame.empty
        func decodes(_ bytes: Data, width: Int = 640, height: Int = 480, color: Bool = false) -> String? {
            do {
                try bytes.withUnsafeBytes { try decoder.decode($0, width: width, height: height, color: color, into: &frame) }
                return nil
            } catch {
                return "\(error)"
            }
        }
        // Every cut before the last scan's data end (the final 2 bytes are the end marker alone).
        for cut in stride(from: 0, to: jpeg.count - 2, by: 97) {
            #expect(decodes(jpeg.prefix(cut)) != nil, "cut at \(cut) of \(jpeg.count)")
        }
        #expect(decodes(jpeg.prefix(jpeg.count / 2))?.contains("premature end of data segment") == true)
        #expect(decodes(Data()) == "JPEG frame does not decode: empty frame")
        #expect(decodes(jpeg, width: 320, height: 240) == "JPEG frame does not decode: a 640x480 picture, not 320x240")
        // Entropy-coded data overwritten with a marker: libjpeg finds it mid-scan.
        var damaged = [UInt8](jpeg)
        for k in stride(from: damaged.count / 3, to: damaged.count / 3 + 64, by: 2) { damaged[k] = 0xFF; damaged[k + 1] = 0xD9 }
        #expect(decodes(Data(damaged)) != nil)
        var random = SeededRandom(seed: 11)
        var decoded = 0
        for round in 0..<3000 {
            var bytes = (0..<Int(random.uniform(1...2000))).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            if round % 2 == 1 { bytes[0] = 0xFF; if bytes.count > 1 { bytes[1] = 0xD8 } } // a start-of-image marker
            if decodes(Data(bytes), width: 64, height: 48, color: round % 3 == 0) == nil { decoded += 1 }
        }
        #expect(decoded == 0)
        // Random bytes overwritten in a real frame: whatever libjpeg makes of them, the decoder answers.
        for _ in 0..<300 {
            var bytes = [UInt8](jpeg)
            for _ in 0..<8 { bytes[Int(random.uniform(0...Double(bytes.count - 1)))] = UInt8(truncatingIfNeeded: random.next()) }
            _ = decodes(Data(bytes), color: Bool.random())
        }
        // And the decoder is whole after all that.
        #expect(decodes(jpeg) == nil)
    }

    /// A stream of frames of one size, good and bad mixed, takes nothing more from malloc after its first
    /// frames: the arenas reach their size and are reused.
    @Test func aStreamOfOneSizeGrowsNoMemory() throws {
        let decoder = try JPEGDecoder()
        let picture = try Self.colourPicture()
        let frames = [try Self.jpeg(picture), try Self.jpeg(picture, quality: 70), try Self.jpeg(picture, luma: (2, 2))]
        var frame = Frame.empty
        for color in [false, true] {
            for round in 0..<40 {
                if round == 2 && !color { #expect(decoder.heapBlocks > 0) }
                let before = (decoder.heapBlocks, decoder.bytesHeld)
                let jpeg = frames[round % frames.count]
                try jpeg.withUnsafeBytes { try decoder.decode($0, width: 640, height: 480, color: color, into: &frame) }
                let cut = jpeg.prefix(jpeg.count / 3)
                #expect(throws: MarkerKitError.self) { try cut.withUnsafeBytes { try decoder.decode($0, width: 640, height: 480, color: color, into: &frame) } }
                if round >= 2 {
                    #expect(decoder.heapBlocks == before.0 && decoder.bytesHeld == before.1, "round \(round), \(color ? "BGR" : "gray")")
                }
            }
        }
        #expect(decoder.bytesHeld < 1_000_000, "\(decoder.bytesHeld) bytes held for 640x480 frames")
    }
}

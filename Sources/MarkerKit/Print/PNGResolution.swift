import Foundation

/// The PNG `pHYs` chunk: pixels per metre, so printing at 100% gives the true size. Cairo's PNG writer
/// stores none, so it is added here.
public enum PNGResolution {
    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// `png` with a pHYs chunk for `dpi` inserted right after IHDR (any earlier pHYs is dropped).
    public static func setting(dpi: Double, in png: Data) throws -> Data {
        let chunks = try parse(png)
        guard let first = chunks.first, first.type == "IHDR" else {
            throw MarkerKitError.internalFailure("PNG writer produced no IHDR chunk")
        }
        let perMetre = UInt32((dpi / 0.0254).rounded())
        var body = Data()
        body.append(bigEndian: perMetre)
        body.append(bigEndian: perMetre)
        body.append(1) // unit: metre
        var out = Data(signature)
        out.append(png[first.range])
        out.append(chunk(type: "pHYs", body: body))
        for c in chunks.dropFirst() where c.type != "pHYs" { out.append(png[c.range]) }
        return out
    }

    /// The resolution stored in `png`, in dots per inch, or nil when it has no pHYs in metres.
    public static func dpi(of png: Data) throws -> Double? {
        for c in try parse(png) where c.type == "pHYs" {
            let body = png[c.bodyRange]
            guard body.count == 9, body[body.startIndex + 8] == 1 else { return nil }
            let x = body.prefix(4).reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            return Double(x) * 0.0254
        }
        return nil
    }

    struct Chunk { let type: String; let range: Range<Int>; let bodyRange: Range<Int> }

    static func parse(_ png: Data) throws -> [Chunk] {
        let bytes = [UInt8](png)
        guard bytes.count >= 8, Array(bytes[0..<8]) == signature else {
            throw MarkerKitError.badInput("not a PNG file")
        }
        var chunks: [Chunk] = []
        var offset = 8
        while offset + 12 <= bytes.count {
            let length = Int(bytes[offset..<offset + 4].reduce(UInt32(0)) { $0 << 8 | UInt32($1) })
            let end = offset + 12 + length
            guard end <= bytes.count else { throw MarkerKitError.badInput("truncated PNG chunk") }
            let type = String(decoding: bytes[offset + 4..<offset + 8], as: UTF8.self)
            chunks.append(Chunk(type: type, range: offset..<end, bodyRange: offset + 8..<offset + 8 + length))
            offset = end
        }
        return chunks
    }

    static func chunk(type: String, body: Data) -> Data {
        var typed = Data(type.utf8)
        typed.append(body)
        var out = Data()
        out.append(bigEndian: UInt32(body.count))
        out.append(typed)
        out.append(bigEndian: crc32(typed))
        return out
    }

    /// CRC-32 (ISO 3309), as PNG chunks use it.
    static func crc32(_ data: Data) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in data {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = (crc >> 1) ^ (0xEDB8_8320 & (0 &- (crc & 1))) }
        }
        return ~crc
    }
}

extension Data {
    mutating func append(bigEndian value: UInt32) {
        Swift.withUnsafeBytes(of: value.bigEndian) { append(contentsOf: $0) }
    }
}

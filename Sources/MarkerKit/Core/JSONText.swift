import MarkerKitKernels

/// JSON text appended to a byte buffer, without building intermediate values: `track` and
/// `detect --jsonl` write one line per frame into one reused buffer, so that a frame's line allocates
/// nothing. Numbers are the shortest text that reads back exactly; what cannot be JSON (NaN, infinity)
/// is written as null.
enum JSONText {
    /// `[[x, y], ...]` of `count` points, point k given by `point(k)`.
    static func appendPoints(_ count: Int, _ point: (Int) -> (Double, Double), to out: inout [UInt8]) {
        out.append(UInt8(ascii: "["))
        for k in 0..<count {
            if k > 0 { out.append(UInt8(ascii: ",")) }
            let (x, y) = point(k)
            out.append(UInt8(ascii: "["))
            append(x, to: &out)
            out.append(UInt8(ascii: ","))
            append(y, to: &out)
            out.append(UInt8(ascii: "]"))
        }
        out.append(UInt8(ascii: "]"))
    }

    static func append(_ value: Double, to out: inout [UInt8]) {
        guard value.isFinite else { return append(literal: "null", to: &out) }
        withUnsafeTemporaryAllocation(of: CChar.self, capacity: 32) { buffer in
            let count = Int(mkk_format_double(value, buffer.baseAddress, 32))
            for index in 0..<count { out.append(UInt8(bitPattern: buffer[index])) }
        }
    }

    static func append(_ value: Int, to out: inout [UInt8]) {
        if value < 0 { out.append(UInt8(ascii: "-")) }
        var magnitude = value.magnitude, divisor: UInt = 1
        while magnitude / divisor >= 10 { divisor *= 10 }
        while divisor > 0 {
            out.append(UInt8(ascii: "0") + UInt8(magnitude / divisor))
            magnitude %= divisor
            divisor /= 10
        }
    }

    static func append(_ text: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): append(literal: "\\\"", to: &out)
            case UInt8(ascii: "\\"): append(literal: "\\\\", to: &out)
            case 0x0A: append(literal: "\\n", to: &out)
            case 0x0D: append(literal: "\\r", to: &out)
            case 0x09: append(literal: "\\t", to: &out)
            case 0..<0x20:
                append(literal: "\\u00", to: &out)
                let hex: StaticString = "0123456789abcdef"
                out.append(hex.utf8Start[Int(byte >> 4)])
                out.append(hex.utf8Start[Int(byte & 0xF)])
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }

    static func append(_ vector: SIMD3<Double>, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "["))
        append(vector.x, to: &out)
        out.append(UInt8(ascii: ","))
        append(vector.y, to: &out)
        out.append(UInt8(ascii: ","))
        append(vector.z, to: &out)
        out.append(UInt8(ascii: "]"))
    }

    static func append(_ values: [Int], to out: inout [UInt8]) {
        out.append(UInt8(ascii: "["))
        for (k, value) in values.enumerated() {
            if k > 0 { out.append(UInt8(ascii: ",")) }
            append(value, to: &out)
        }
        out.append(UInt8(ascii: "]"))
    }

    /// `"key":`, preceded by a comma unless it is the first member.
    static func append(key: StaticString, first: Bool = false, to out: inout [UInt8]) {
        if !first { out.append(UInt8(ascii: ",")) }
        out.append(UInt8(ascii: "\""))
        append(literal: key, to: &out)
        append(literal: "\":", to: &out)
    }

    static func append(literal: StaticString, to out: inout [UInt8]) {
        out.append(contentsOf: UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
    }
}

import Foundation
import Yams

/// Reading numbers and lists out of a parsed YAML or JSON document, with messages that name the key.
struct Fields {
    let values: [String: Any]
    let what: String

    init(_ any: Any?, what: String) throws {
        guard let values = any as? [String: Any] else { throw MarkerKitError.badInput("\(what) is not a mapping") }
        self.values = values
        self.what = what
    }

    static func yaml(_ data: Data, what: String) throws -> Fields {
        let text = String(decoding: data, as: UTF8.self)
        try NestingLimit.check(text)
        let parsed: Node?
        do {
            parsed = try Yams.compose(yaml: text)
        } catch {
            throw MarkerKitError.badInput("not valid YAML")
        }
        return try Fields(parsed.map(plain), what: what)
    }

    /// A YAML node as plain values: text, lists and text-keyed mappings, null as NSNull. Walks the node
    /// tree itself: Yams' own `load` traps on a mapping key that is itself a list or mapping (found by
    /// `make fuzz`); such keys are left out here, as no calibration format has them.
    static func plain(_ node: Node) -> Any {
        switch node {
        case .scalar(let scalar):
            return node.null ?? scalar.string as Any
        case .sequence(let sequence):
            return sequence.map(plain)
        case .mapping(let mapping):
            var values: [String: Any] = [:]
            for (key, value) in mapping {
                if case .scalar(let name) = key { values[name.string] = plain(value) }
            }
            return values
        }
    }

    func has(_ key: String) -> Bool { values[key] != nil && !(values[key] is NSNull) }

    func number(_ key: String) throws -> Double {
        guard let value = Self.double(values[key]) else { throw MarkerKitError.badInput("\(what): '\(key)' is missing or not a number") }
        return value
    }

    func integer(_ key: String) throws -> Int { try wholeNumber(try number(key), "\(what): '\(key)'") }

    func string(_ key: String) throws -> String {
        guard let value = values[key] as? String else { throw MarkerKitError.badInput("\(what): '\(key)' is missing or not text") }
        return value
    }

    func numbers(_ key: String) throws -> [Double] {
        guard let list = values[key] as? [Any] else { throw MarkerKitError.badInput("\(what): '\(key)' is missing or not a list") }
        return try list.map {
            guard let value = Self.double($0) else { throw MarkerKitError.badInput("\(what): '\(key)' holds a non-number") }
            return value
        }
    }

    func fields(_ key: String) throws -> Fields { try Fields(values[key], what: "\(what) '\(key)'") }

    static func double(_ any: Any?) -> Double? {
        switch any {
        case let v as Double: return v
        case let v as Int: return Double(v)
        case let v as NSNumber: return v.doubleValue
        case let v as String:
            // YAML's own spellings of the special floats, so that a NaN is refused as a NaN.
            switch v.lowercased() {
            case ".nan": return .nan
            case ".inf", "+.inf": return .infinity
            case "-.inf": return -.infinity
            default: return Double(v)
            }
        default: return nil
        }
    }
}

/// A count or size given as a number: whole and within 32 bits (Int(Double) traps on NaN or 1e300,
/// found by `make fuzz`).
func wholeNumber(_ value: Double, _ what: String) throws -> Int {
    guard value.isFinite, value == value.rounded(), abs(value) <= Double(Int32.max) else {
        throw MarkerKitError.badInput("\(what) is not a whole number")
    }
    return Int(value)
}

/// Refuses text nested deeper than any calibration file is, before a recursive parser sees it: Yams'
/// composer recursed until the stack overflowed on thousands of `{` (found by `make fuzz`). Counts
/// open brackets outside quotes and comments, and per line the indentation and leading `- ` / `? `
/// markers of YAML's block style.
enum NestingLimit {
    static let depth = 32

    static func check(_ text: String) throws {
        var flow = 0, quote: UInt8? = nil, comment = false, lineStart = true, indent = 0, markers = 0, previous: UInt8 = 0x0A
        for byte in text.utf8 {
            defer { previous = byte }
            if byte == 0x0A { comment = false; lineStart = true; indent = 0; markers = 0; if quote == 0x27 { quote = nil }; continue }
            if comment { continue }
            if let q = quote {
                if byte == q && previous != 0x5C { quote = nil }
                continue
            }
            if lineStart {
                if byte == 0x20 { indent += 1; continue }
                if (byte == 0x2D || byte == 0x3F), previous == 0x20 || previous == 0x0A { markers += 1; continue }
                lineStart = byte == 0x20
            }
            switch byte {
            case 0x22, 0x27: quote = byte
            case 0x23 where previous == 0x20 || previous == 0x0A || previous == 0x09: comment = true
            case 0x5B, 0x7B: flow += 1
            case 0x5D, 0x7D: flow = max(0, flow - 1)
            default: break
            }
            if flow > depth || markers > depth || indent > 8 * depth {
                throw MarkerKitError.badInput("nested deeper than \(depth) levels")
            }
        }
    }
}

/// A YAML flow list of exact numbers: `[1.5, 0.0, 2.25]`.
func flowList(_ values: [Double]) -> String { "[" + values.map(\.exact).joined(separator: ", ") + "]" }

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

    func integer(_ key: String) throws -> Int {
        let value = try number(key)
        guard value == value.rounded(), abs(value) < 1e9 else { throw MarkerKitError.badInput("\(what): '\(key)' is not a whole number") }
        return Int(value)
    }

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

/// A YAML flow list of exact numbers: `[1.5, 0.0, 2.25]`.
func flowList(_ values: [Double]) -> String { "[" + values.map(\.exact).joined(separator: ", ") + "]" }

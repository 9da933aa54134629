import Foundation

/// A physical length as a user types it: a number and a unit, always both (`25mm`, `1.5in`, `0.04m`).
/// Stored in millimetres, the unit every MarkerKit file records.
public struct Length: Hashable, Comparable, Sendable, CustomStringConvertible {
    public enum Unit: String, CaseIterable, Sendable {
        case mm, cm, m, `in`, pt

        /// Millimetres in one of this unit.
        public var millimetres: Double {
            switch self {
            case .mm: return 1
            case .cm: return 10
            case .m: return 1000
            case .in: return 25.4
            case .pt: return 25.4 / 72
            }
        }
    }

    public let millimetres: Double

    public init(millimetres: Double) { self.millimetres = millimetres }
    public init(_ value: Double, _ unit: Unit) { self.millimetres = value * unit.millimetres }

    public static func mm(_ v: Double) -> Length { Length(millimetres: v) }

    /// The longest length MarkerKit takes from a user: 1 km. Sizes, margins and distances beyond it are
    /// refused where they are parsed, so that no page, pixel count or label computed from one overflows.
    public static let longest = Length(millimetres: 1_000_000)
    /// The shortest positive length: 1 µm, the resolution lengths are written with (0.001 mm).
    public static let shortest = Length(millimetres: 0.001)
    /// "0.001 mm to 1 km": the range of a positive length, as messages name it.
    public static let positiveRange = "0.001 mm to 1 km"

    /// Millimetres as files write them: to the nanometre, so that sums of lengths do not leave binary
    /// fractions in a file (a board's origin 22.900000000000006 mm is written 22.9).
    public static func written(_ millimetres: Double) -> Double {
        guard millimetres.isFinite, abs(millimetres) < 1e9 else { return millimetres }
        return (millimetres * 1e6).rounded() / 1e6
    }

    public var points: Double { millimetres / 25.4 * 72 }
    public var inches: Double { millimetres / 25.4 }
    public func value(in unit: Unit) -> Double { millimetres / unit.millimetres }

    public static func < (a: Length, b: Length) -> Bool { a.millimetres < b.millimetres }

    /// "40 mm", "12.5 mm": millimetres with at most three decimals.
    public var description: String { "\(Length.format(millimetres)) mm" }

    /// Any Double, never a trap: whole numbers from 1e18 on are written as Swift writes them (1e+35), nan and
    /// inf as such.
    static func format(_ v: Double) -> String {
        guard v.isFinite else { return "\(v)" }
        let rounded = abs(v) < 1e12 ? (v * 1000).rounded() / 1000 : v.rounded()
        if rounded == rounded.rounded() {
            return abs(rounded) < 1e18 ? String(Int(rounded)) : "\(rounded)" // 1e+35
        }
        var s = String(format: "%.3f", rounded)
        while s.hasSuffix("0") { s.removeLast() }
        return s
    }

    /// Parses `40mm`, `4 cm`, `1.5in`, `0.04m`, `72pt`. A bare number is refused: the unit is never guessed.
    /// Errors name `what` and the text ("square size '40' has no unit..."); an empty `what` leaves both to
    /// the caller, which names them itself ("it has no unit...").
    public init(parsing text: String, what: String = "length") throws {
        let subject = Self.subject(text, what)
        let trimmed = text.trimmingCharacters(in: .whitespaces).lowercased()
        let (number, unitText) = Length.split(trimmed)
        let units = Unit.allCases.map(\.rawValue).joined(separator: ", ")
        guard !number.isEmpty, let value = Double(number) else {
            throw MarkerKitError.invalidArgument("\(subject) is not a number with a unit (e.g. 40mm; units: \(units))")
        }
        guard !unitText.isEmpty else {
            throw MarkerKitError.invalidArgument("\(subject) has no unit: write it as \(number)mm, \(number)in, ... (units: \(units))")
        }
        guard let unit = Unit(rawValue: unitText == "inch" ? "in" : unitText) else {
            throw MarkerKitError.invalidArgument("\(subject) has an unknown unit '\(unitText)' (units: \(units))")
        }
        guard value.isFinite else {
            throw MarkerKitError.invalidArgument("\(subject) is not a finite number")
        }
        let millimetres = value * unit.millimetres
        guard millimetres.isFinite, abs(millimetres) <= Length.longest.millimetres else {
            throw MarkerKitError.invalidArgument("\(subject) is longer than 1 km (lengths run from -1 km to 1 km)")
        }
        self.init(millimetres: millimetres)
    }

    /// Parses a length that must be greater than zero.
    public static func positive(_ text: String, what: String = "") throws -> Length {
        let length = try Length(parsing: text, what: what)
        guard length.millimetres > 0 else {
            throw MarkerKitError.invalidArgument("\(subject(text, what)) must be greater than zero (\(positiveRange))")
        }
        guard length.millimetres >= Length.shortest.millimetres else {
            throw MarkerKitError.invalidArgument("\(subject(text, what)) is shorter than 0.001 mm (\(positiveRange))")
        }
        return length
    }

    /// Parses a length that may be zero but not negative (margins, gaps).
    public static func nonNegative(_ text: String, what: String = "") throws -> Length {
        let length = try Length(parsing: text, what: what)
        guard length.millimetres >= 0 else {
            throw MarkerKitError.invalidArgument("\(subject(text, what)) must not be negative (0 to 1 km)")
        }
        return length
    }

    static func subject(_ text: String, _ what: String) -> String { what.isEmpty ? "it" : "\(what) '\(text)'" }

    /// Splits "12.5mm" into ("12.5", "mm"), and "1e3mm" into ("1e3", "mm") (no unit begins with e).
    static func split(_ s: String) -> (String, String) {
        var number = String(s.prefix { "0123456789.+-".contains($0) })
        let rest = s.dropFirst(number.count)
        if let e = rest.first, e == "e" || e == "E" {
            let exponent = rest.dropFirst().prefix { "0123456789+-".contains($0) }
            if exponent.contains(where: \.isNumber) { number += String(rest.prefix(1 + exponent.count)) }
        }
        return (number, s.dropFirst(number.count).trimmingCharacters(in: .whitespaces))
    }
}

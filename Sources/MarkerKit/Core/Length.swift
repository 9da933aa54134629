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

    public var points: Double { millimetres / 25.4 * 72 }
    public var inches: Double { millimetres / 25.4 }
    public func value(in unit: Unit) -> Double { millimetres / unit.millimetres }

    public static func < (a: Length, b: Length) -> Bool { a.millimetres < b.millimetres }

    /// "40 mm", "12.5 mm": millimetres with at most three decimals.
    public var description: String { "\(Length.format(millimetres)) mm" }

    static func format(_ v: Double) -> String {
        let rounded = (v * 1000).rounded() / 1000
        if rounded == rounded.rounded() { return String(Int(rounded)) }
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
        self.init(value, unit)
    }

    /// Parses a length that must be greater than zero.
    public static func positive(_ text: String, what: String = "") throws -> Length {
        let length = try Length(parsing: text, what: what)
        guard length.millimetres > 0 else {
            throw MarkerKitError.invalidArgument("\(subject(text, what)) must be greater than zero")
        }
        return length
    }

    /// Parses a length that may be zero but not negative (margins, gaps).
    public static func nonNegative(_ text: String, what: String = "") throws -> Length {
        let length = try Length(parsing: text, what: what)
        guard length.millimetres >= 0 else {
            throw MarkerKitError.invalidArgument("\(subject(text, what)) must not be negative")
        }
        return length
    }

    static func subject(_ text: String, _ what: String) -> String { what.isEmpty ? "it" : "\(what) '\(text)'" }

    /// Splits "12.5mm" into ("12.5", "mm").
    static func split(_ s: String) -> (String, String) {
        let number = s.prefix { "0123456789.+-".contains($0) }
        return (String(number), s.dropFirst(number.count).trimmingCharacters(in: .whitespaces))
    }
}

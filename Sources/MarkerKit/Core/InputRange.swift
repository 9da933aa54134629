import Foundation

/// The range of a number a user or a request gives, checked where it enters the library: a value outside
/// it is refused with one line that names the range ("render count 0 is outside 1-100000"), never
/// carried on into arithmetic that could trap. The command-line tool adds the option's name in front.
public enum InputRange {
    /// `value` when `range` holds it, else `MarkerKitError.invalidArgument`.
    @discardableResult
    public static func check(_ value: Int, in range: ClosedRange<Int>, _ what: String) throws -> Int {
        guard range.contains(value) else {
            throw MarkerKitError.invalidArgument("\(what) \(value) is outside \(range.lowerBound)-\(range.upperBound)")
        }
        return value
    }

    /// `value` when `range` holds it (nan never does), else `MarkerKitError.invalidArgument`.
    @discardableResult
    public static func check(_ value: Double, in range: ClosedRange<Double>, _ what: String) throws -> Double {
        guard range.contains(value) else {
            throw MarkerKitError.invalidArgument("\(what) \(value) is outside \(Length.format(range.lowerBound))-\(Length.format(range.upperBound))")
        }
        return value
    }

    /// "WxH" or "COLUMNSxROWS" in `range` each, or the one-line refusal naming `shape` and the range
    /// ("'0x0' is not WIDTHxHEIGHT in pixels (16-8192 each), such as 1280x720").
    public static func pair(_ text: String, in range: ClosedRange<Int>, shape: String, example: String) throws -> (Int, Int) {
        guard let (first, second) = halves(text), let a = Int(first), let b = Int(second), range.contains(a), range.contains(b) else {
            throw MarkerKitError.invalidArgument("'\(text)' is not \(shape) (\(range.lowerBound)-\(range.upperBound) each), such as \(example)")
        }
        return (a, b)
    }

    /// The two sides of "AxB" (any case, spaces around each side dropped), or nil when it is not two
    /// sides: the one place a "WxH" is split, for pixel sizes, board and grid counts and page sizes.
    public static func halves(_ text: String) -> (String, String)? {
        let parts = text.lowercased().split(separator: "x", omittingEmptySubsequences: false)
        guard parts.count == 2 else { return nil }
        return (parts[0].trimmingCharacters(in: .whitespaces), parts[1].trimmingCharacters(in: .whitespaces))
    }
}

extension InputRange {
    /// A list of thread counts such as "1,2,all" (all: `cores`), each in 1...`cores`, in the order given
    /// without repeats; or the one-line refusal naming the machine's cores.
    public static func threadCounts(_ text: String, cores: Int) throws -> [Int] {
        var counts: [Int] = []
        for part in text.split(separator: ",", omittingEmptySubsequences: false) {
            let item = part.trimmingCharacters(in: .whitespaces).lowercased()
            guard let n = item == "all" ? cores : Int(item), (1...cores).contains(n) else {
                throw MarkerKitError.invalidArgument("'\(item)' is not a thread count: 1-\(cores) (the cores this process may use) or all")
            }
            if !counts.contains(n) { counts.append(n) }
        }
        return counts
    }
}

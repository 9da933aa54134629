import Foundation

/// Marker IDs as users type them: `0-23`, `3,7,100-120`, `5`. Remembers which IDs were named alone,
/// because ambiguous IDs are left out of ranges but kept when asked for by name.
public struct IDSelection: Sendable, Equatable {
    /// The IDs in the order written, duplicates removed.
    public let ids: [Int]
    /// The IDs written on their own rather than inside a range.
    public let named: Set<Int>
    /// The dictionary the IDs belong to.
    public let dictionary: MarkerDictionary

    /// Throws on an ID outside the dictionary, a reversed range or anything that is not a number.
    public init(parsing text: String, dictionary: MarkerDictionary = .arucoOriginal) throws {
        let last = dictionary.count - 1
        var ids: [Int] = []
        var named = Set<Int>()
        var seen = Set<Int>()
        for rawPart in text.split(separator: ",", omittingEmptySubsequences: false) {
            let part = rawPart.trimmingCharacters(in: .whitespaces)
            let bounds = part.split(separator: "-", omittingEmptySubsequences: false).map {
                $0.trimmingCharacters(in: .whitespaces)
            }
            guard (1...2).contains(bounds.count), let low = Int(bounds[0]), let high = Int(bounds[bounds.count - 1]) else {
                throw MarkerKitError.invalidArgument("'\(text)': '\(part)' is not an ID or a range like 100-120")
            }
            for id in [low, high] where !(0...last).contains(id) {
                throw MarkerKitError.invalidArgument("'\(text)': ID \(id) is outside 0-\(last) of \(dictionary.name)")
            }
            guard low <= high else {
                throw MarkerKitError.invalidArgument("'\(text)': range \(part) runs backwards (write \(high)-\(low))")
            }
            if bounds.count == 1 { named.insert(low) }
            for id in low...high where seen.insert(id).inserted { ids.append(id) }
        }
        self.ids = ids
        self.named = named
        self.dictionary = dictionary
    }

    /// The IDs to print: ambiguous IDs that came only from ranges are dropped unless `includeAmbiguous`.
    public func printable(includeAmbiguous: Bool) -> (kept: [Int], dropped: [Int]) {
        if includeAmbiguous { return (ids, []) }
        let ambiguous = dictionary.ambiguousIDs
        let dropped = ids.filter { ambiguous.contains($0) && !named.contains($0) }
        let droppedSet = Set(dropped)
        return (ids.filter { !droppedSet.contains($0) }, dropped)
    }
}

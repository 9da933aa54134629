import Foundation

/// A set of 5x5 square-marker codes, bit for bit one of OpenCV's predefined dictionaries:
/// `DICT_ARUCO_ORIGINAL` (the default: 1024 IDs, each row one of four 5-bit words, no error correction) and
/// `DICT_5X5_50`, `_100`, `_250`, `_1000` (the first 50, 100, 250, 1000 codes of one list, which correct
/// one wrong cell as OpenCV's detector does by default).
///
/// A grid decodes as OpenCV's `Dictionary::identify` decides it: the lowest ID that some turn of the grid
/// matches with at most `correctableBits` cells wrong, in the turn with the fewest wrong cells.
public struct MarkerDictionary: Sendable, Hashable, CustomStringConvertible {
    /// The dictionaries MarkerKit reads.
    public enum Name: String, CaseIterable, Sendable, Codable {
        case arucoOriginal = "DICT_ARUCO_ORIGINAL"
        case dict5x5_50 = "DICT_5X5_50"
        case dict5x5_100 = "DICT_5X5_100"
        case dict5x5_250 = "DICT_5X5_250"
        case dict5x5_1000 = "DICT_5X5_1000"

        /// The short name users may type: `aruco-original`, `5x5_100`.
        public var shortName: String {
            self == .arucoOriginal ? "aruco-original" : String(rawValue.dropFirst(5)).lowercased()
        }

        /// OpenCV's name (`DICT_5X5_100`) or the short one (`5x5_100`), in any case, `-` or `_` alike;
        /// `original` and `aruco_original` name the default too.
        public init?(parsing text: String) {
            func key(_ s: String) -> String {
                var k = s.uppercased().replacingOccurrences(of: "-", with: "_")
                if k.hasPrefix("DICT_") { k.removeFirst(5) }
                return k
            }
            let wanted = key(text)
            if wanted == "ORIGINAL" { self = .arucoOriginal; return }
            guard let name = Name.allCases.first(where: { key($0.rawValue) == wanted }) else { return nil }
            self = name
        }

        /// Every accepted short name, for help texts and error messages.
        public static var shortNames: String { allCases.map(\.shortName).joined(separator: ", ") }
    }

    /// The row words of `DICT_ARUCO_ORIGINAL` for the values 0...3 (column 0 first).
    public static let rowWords = [0b10000, 0b10111, 0b01001, 0b01110]

    public static let arucoOriginal = MarkerDictionary(.arucoOriginal)
    public static let dict5x5_50 = MarkerDictionary(.dict5x5_50)
    public static let dict5x5_100 = MarkerDictionary(.dict5x5_100)
    public static let dict5x5_250 = MarkerDictionary(.dict5x5_250)
    public static let dict5x5_1000 = MarkerDictionary(.dict5x5_1000)

    /// The dictionary with this name (each is built once, on first use).
    public static func named(_ name: Name) -> MarkerDictionary {
        switch name {
        case .arucoOriginal: return arucoOriginal
        case .dict5x5_50: return dict5x5_50
        case .dict5x5_100: return dict5x5_100
        case .dict5x5_250: return dict5x5_250
        case .dict5x5_1000: return dict5x5_1000
        }
    }

    /// A dictionary by OpenCV's or the short name; the error names every accepted one.
    public static func parse(_ text: String) throws -> MarkerDictionary {
        guard let name = Name(parsing: text) else {
            throw MarkerKitError.invalidArgument("unknown dictionary '\(text)' (known: \(Name.shortNames), or OpenCV's names such as DICT_5X5_100)")
        }
        return named(name)
    }

    public let id: Name
    /// OpenCV's name, as written into files: `DICT_5X5_100`.
    public var name: String { id.rawValue }
    public var shortName: String { id.shortName }
    public let count: Int
    public let markerSize = 5
    /// OpenCV's `maxCorrectionBits` for this dictionary.
    public let maxCorrectionBits: Int
    /// Wrong cells a read may have and still count: `maxCorrectionBits` x 0.6 rounded down, as OpenCV's
    /// detector with its default `errorCorrectionRate` (0 for DICT_ARUCO_ORIGINAL, 1 for the 5x5 ones).
    public let correctableBits: Int
    /// The fewest cells in which two codes differ, over every pair of IDs in every turn and every ID
    /// against itself turned (checked by `MarkerDictionaryTests` against the codes): 0 for
    /// DICT_ARUCO_ORIGINAL (some of its IDs read the same turned), 8, 7, 6, 5 for DICT_5X5_50, 100, 250, 1000.
    public let minimumCodeDistance: Int
    /// Data cells a read may leave unknown (erasures) besides `correctableBits` wrong ones, and still have
    /// only one code within reach: minimumCodeDistance - 1 - 2 x correctableBits (a code with e erasures and
    /// t errors is unique when e + 2t < d), 0 when that is negative. 5, 4, 3, 2 for the 5x5 dictionaries.
    public var erasableCells: Int { max(0, minimumCodeDistance - 1 - 2 * correctableBits) }
    /// The upright code of each ID.
    let codes: [UInt32]
    private let table: CodeTable

    public var description: String { name }

    private init(_ id: Name) {
        self.id = id
        switch id {
        case .arucoOriginal:
            codes = (0..<1024).map { Self.originalCode($0) }
            (maxCorrectionBits, minimumCodeDistance) = (0, 0)
        case .dict5x5_50: codes = Array(OpenCV5x5Codes.dict5x5_1000.prefix(50)); (maxCorrectionBits, minimumCodeDistance) = (3, 8)
        case .dict5x5_100: codes = Array(OpenCV5x5Codes.dict5x5_1000.prefix(100)); (maxCorrectionBits, minimumCodeDistance) = (3, 7)
        case .dict5x5_250: codes = Array(OpenCV5x5Codes.dict5x5_1000.prefix(250)); (maxCorrectionBits, minimumCodeDistance) = (2, 6)
        case .dict5x5_1000: codes = OpenCV5x5Codes.dict5x5_1000; (maxCorrectionBits, minimumCodeDistance) = (2, 5)
        }
        count = codes.count
        correctableBits = Int(Double(maxCorrectionBits) * 0.6)
        // Three DICT_ARUCO_ORIGINAL markers are one cell from a DICT_5X5_1000 code (in some turn): a 5x5 read
        // that needs a correction is refused when the grid is exactly an ARUCO_ORIGINAL marker, so that
        // neither reads the other's markers (OpenCV's detector does read them).
        let foreign: Set<UInt32> = id == .arucoOriginal ? [] : Set((0..<1024).flatMap { original in
            (0..<4).map { MarkerBits(raw: Self.originalCode(original)).rotatedClockwise($0).raw }
        })
        table = CodeTable(codes: codes, correctable: correctableBits, refusingCorrectionsTo: foreign)
    }

    public static func == (a: MarkerDictionary, b: MarkerDictionary) -> Bool { a.id == b.id }
    public func hash(into hasher: inout Hasher) { hasher.combine(id) }

    /// DICT_ARUCO_ORIGINAL's code for `id`: row y holds the word for the two bits of `id` at 4^(4-y).
    private static func originalCode(_ id: Int) -> UInt32 {
        var raw: UInt32 = 0
        for y in 0..<5 {
            let word = rowWords[(id >> (2 * (4 - y))) & 3]
            for x in 0..<5 where word & (1 << (4 - x)) != 0 { raw |= 1 << UInt32(y * 5 + x) }
        }
        return raw
    }

    /// A marker found in a grid: which ID, and how many clockwise quarter turns the observed grid is
    /// from the marker as printed upright.
    public struct Decoded: Hashable, Sendable {
        public let id: Int
        public let rotation: Int
    }

    public func contains(_ id: Int) -> Bool { (0..<count).contains(id) }

    /// The data cells of marker `id`.
    public func bits(for id: Int) -> MarkerBits {
        precondition(contains(id), "marker id \(id) outside 0..<\(count) of \(name)")
        return MarkerBits(raw: codes[id])
    }

    /// Reads an observed grid in all four orientations; nil when no turn of it is a marker.
    public func decode(_ observed: MarkerBits) -> Decoded? {
        table.lookup(observed.raw)
    }

    /// A marker whose orientation or identity cannot be trusted.
    public struct Ambiguity: Hashable, Sendable, CustomStringConvertible {
        public let id: Int
        /// The other ID it can be mistaken for when turned (nil when the marker is confused with itself).
        public let other: Int?
        /// The turn, in degrees clockwise, under which the confusion happens.
        public let degrees: Int
        /// Cells that differ under that turn (0 for a symmetric marker).
        public let distance: Int

        public var description: String {
            if let other {
                return "\(id) turned \(degrees)° is \(distance) cell\(distance == 1 ? "" : "s") from \(other)"
            }
            if distance == 0 { return "\(id) is symmetric under a \(degrees)° turn: its orientation cannot be read" }
            return "\(id) turned \(degrees)° is \(distance) cell\(distance == 1 ? "" : "s") from itself: its orientation is fragile"
        }
    }

    /// Every marker that one wrong cell more than the code corrects turns into another reading: another ID
    /// under a turn, or itself under a turn (for DICT_ARUCO_ORIGINAL: 1023, symmetric, and five pairs one
    /// cell apart at 180 degrees). Computed from the codes; each pair is listed once for each of its IDs.
    public var ambiguities: [Ambiguity] { table.ambiguities(codes: codes, limit: correctableBits + 1) }

    /// The IDs that sheets leave out unless asked: `ambiguities`' IDs.
    public var ambiguousIDs: Set<Int> { table.ambiguousIDs(codes: codes, limit: correctableBits + 1) }

    /// The IDs whose reading can be trusted (all but `ambiguousIDs`), in order: what renders sample from.
    public var usableIDs: [Int] {
        let ambiguous = ambiguousIDs
        return (0..<count).filter { !ambiguous.contains($0) }
    }

    /// The smallest number of differing cells between two different IDs, one of them turned by
    /// `degrees` (0, 90, 180 or 270). (An ID against itself turned is in `ambiguities`.)
    public func minimumDistance(degrees: Int) -> Int {
        let turn = degrees / 90
        var best = Int.max
        for a in 0..<count {
            let turned = MarkerBits(raw: codes[a]).rotatedClockwise(turn).raw
            for b in 0..<count where a != b { best = min(best, (turned ^ codes[b]).nonzeroBitCount) }
        }
        return best
    }
}

/// Every grid within `correctable` wrong cells of some turn of some code, looked up in one hash: built once
/// per dictionary (1000 codes x 4 turns x 26 grids for the 5x5 ones), so a read costs one lookup.
private final class CodeTable: @unchecked Sendable {
    /// Grid -> id << 2 | rotation.
    private let entries: [UInt32: UInt32]
    private let lock = NSLock()
    private var cachedAmbiguities: [Ambiguity]?
    private var cachedIDs: Set<Int>?

    typealias Ambiguity = MarkerDictionary.Ambiguity

    init(codes: [UInt32], correctable: Int, refusingCorrectionsTo foreign: Set<UInt32>) {
        var entries: [UInt32: UInt32] = [:]
        entries.reserveCapacity(codes.count * 4 * (correctable == 0 ? 1 : 1 + 25))
        // OpenCV's identify: the first ID (in list order) whose best turn is within reach wins, in that best
        // turn (the first of equals). Inserting ID by ID, nearest grids first, never overwriting, gives that.
        for (id, code) in codes.enumerated() {
            let turns = (0..<4).map { MarkerBits(raw: code).rotatedClockwise($0).raw }
            for wrong in 0...correctable {
                for (rotation, turned) in turns.enumerated() {
                    Self.forEachGrid(near: turned, flipping: wrong) { grid in
                        if wrong > 0 && foreign.contains(grid) { return }
                        if entries[grid] == nil { entries[grid] = UInt32(id) << 2 | UInt32(rotation) }
                    }
                }
            }
        }
        self.entries = entries
    }

    /// Every grid with exactly `flips` of the 25 cells of `code` flipped (flips 0 or 1 are the ones used).
    private static func forEachGrid(near code: UInt32, flipping flips: Int, _ body: (UInt32) -> Void) {
        func recurse(_ grid: UInt32, from cell: Int, left: Int) {
            if left == 0 { body(grid); return }
            guard cell < 25 else { return }
            for c in cell..<25 { recurse(grid ^ (1 << UInt32(c)), from: c + 1, left: left - 1) }
        }
        recurse(code, from: 0, left: flips)
    }

    func lookup(_ grid: UInt32) -> MarkerDictionary.Decoded? {
        guard let entry = entries[grid] else { return nil }
        return MarkerDictionary.Decoded(id: Int(entry >> 2), rotation: Int(entry & 3))
    }

    func ambiguities(codes: [UInt32], limit: Int) -> [Ambiguity] {
        lock.withLock {
            if let cachedAmbiguities { return cachedAmbiguities }
            var found: [Ambiguity] = []
            let turned = codes.map { code in (0..<4).map { MarkerBits(raw: code).rotatedClockwise($0).raw } }
            for a in codes.indices {
                for turn in 1..<4 {
                    let selfDistance = (turned[a][turn] ^ codes[a]).nonzeroBitCount
                    // Itself turned: symmetric, or (with error correction) fragile.
                    if selfDistance <= limit {
                        found.append(Ambiguity(id: a, other: nil, degrees: 90 * turn, distance: selfDistance))
                    }
                    for b in codes.indices where b != a {
                        let d = (turned[a][turn] ^ codes[b]).nonzeroBitCount
                        if d <= limit { found.append(Ambiguity(id: a, other: b, degrees: 90 * turn, distance: d)) }
                    }
                }
            }
            cachedAmbiguities = found
            return found
        }
    }

    func ambiguousIDs(codes: [UInt32], limit: Int) -> Set<Int> {
        if let ids = lock.withLock({ cachedIDs }) { return ids }
        let ids = Set(ambiguities(codes: codes, limit: limit).map(\.id))
        lock.withLock { cachedIDs = ids }
        return ids
    }
}

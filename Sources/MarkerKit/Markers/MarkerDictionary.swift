import Foundation
import Synchronization

/// A set of square-marker codes, bit for bit one of OpenCV 4.6's predefined dictionaries: the 5x5 ones first
/// (`DICT_ARUCO_ORIGINAL`, the default: 1024 IDs, each row one of four 5-bit words, no error correction;
/// `DICT_5X5_50`, `_100`, `_250`, `_1000`, the first 50, 100, 250, 1000 codes of one list), then
/// `DICT_4X4_*`, `DICT_6X6_*`, `DICT_7X7_*` (likewise prefixes of one list per size) and
/// `DICT_APRILTAG_16h5`, `25h9`, `36h10`, `36h11` (with a one-cell black border, as OpenCV draws them).
/// Codes and `maxCorrectionBits` are OpenCV's (`OpenCVCodes`, read out of the library).
///
/// A grid decodes as OpenCV's `Dictionary::identify` decides it: the lowest ID that some turn of the grid
/// matches with at most `correctableBits` cells wrong, in the turn with the fewest wrong cells.
public struct MarkerDictionary: Sendable, Hashable, CustomStringConvertible {
    /// The dictionaries MarkerKit reads: every OpenCV predefined one, the 5x5 ones first.
    public enum Name: String, CaseIterable, Sendable, Codable {
        case arucoOriginal = "DICT_ARUCO_ORIGINAL"
        case dict5x5_50 = "DICT_5X5_50"
        case dict5x5_100 = "DICT_5X5_100"
        case dict5x5_250 = "DICT_5X5_250"
        case dict5x5_1000 = "DICT_5X5_1000"
        case dict4x4_50 = "DICT_4X4_50"
        case dict4x4_100 = "DICT_4X4_100"
        case dict4x4_250 = "DICT_4X4_250"
        case dict4x4_1000 = "DICT_4X4_1000"
        case dict6x6_50 = "DICT_6X6_50"
        case dict6x6_100 = "DICT_6X6_100"
        case dict6x6_250 = "DICT_6X6_250"
        case dict6x6_1000 = "DICT_6X6_1000"
        case dict7x7_50 = "DICT_7X7_50"
        case dict7x7_100 = "DICT_7X7_100"
        case dict7x7_250 = "DICT_7X7_250"
        case dict7x7_1000 = "DICT_7X7_1000"
        case aprilTag16h5 = "DICT_APRILTAG_16h5"
        case aprilTag25h9 = "DICT_APRILTAG_25h9"
        case aprilTag36h10 = "DICT_APRILTAG_36h10"
        case aprilTag36h11 = "DICT_APRILTAG_36h11"

        /// The short name users may type: `aruco-original`, `5x5_100`, `apriltag_36h11`.
        public var shortName: String {
            self == .arucoOriginal ? "aruco-original" : String(rawValue.dropFirst(5)).lowercased()
        }

        /// OpenCV's number for it (`cv::aruco::PREDEFINED_DICTIONARY_NAME`).
        public var openCVNumber: Int32 {
            switch self {
            case .arucoOriginal: return 16
            case .aprilTag16h5: return 17
            case .aprilTag25h9: return 18
            case .aprilTag36h10: return 19
            case .aprilTag36h11: return 20
            default:
                // DICT_4X4_50 is 0; each size has four, 50 to 1000.
                let side = Int32(rawValue.dropFirst(5).prefix(1))!
                let position: Int32 = ["50": 0, "100": 1, "250": 2, "1000": 3][rawValue.split(separator: "_").last!]!
                return 4 * (side - 4) + position
            }
        }

        /// Cells per side of the data grid (4 to 7).
        public var markerSize: Int { OpenCVCodes.parameters[Int(openCVNumber)].markerSize }

        /// OpenCV's name (`DICT_5X5_100`, `DICT_APRILTAG_36h11`) or the short one (`5x5_100`,
        /// `apriltag_36h11`), in any case, `-` or `_` alike; `original` and `aruco_original` name the
        /// default too, `tag36h11` (AprilTag's own spelling) its AprilTag dictionary.
        public init?(parsing text: String) {
            func key(_ s: String) -> String {
                var k = s.uppercased().replacingOccurrences(of: "-", with: "_")
                if k.hasPrefix("DICT_") { k.removeFirst(5) }
                if k.hasPrefix("TAG"), k.count > 3, k.dropFirst(3).first!.isNumber { k = "APRILTAG_" + k.dropFirst(3) }
                return k
            }
            let wanted = key(text)
            if wanted == "ORIGINAL" { self = .arucoOriginal; return }
            guard let name = Name.allCases.first(where: { key($0.rawValue) == wanted }) else { return nil }
            self = name
        }

        /// Every accepted short name, for help texts and error messages.
        public static var shortNames: String { allCases.map(\.shortName).joined(separator: ", ") }

        /// The codes this dictionary's IDs are the first of, with the other dictionaries of that list
        /// (the 50, 100, 250 and 1000 of one size share one): dictionaries of one size but another list
        /// are foreign to each other, and the cross-talk guard keeps them apart.
        var codeList: String {
            switch self {
            case .arucoOriginal, .aprilTag16h5, .aprilTag25h9, .aprilTag36h10, .aprilTag36h11: return rawValue
            default: return String(rawValue.dropFirst(5).prefix(3))
            }
        }
    }

    /// The row words of `DICT_ARUCO_ORIGINAL` for the values 0...3 (column 0 first).
    public static let rowWords = [0b10000, 0b10111, 0b01001, 0b01110]

    /// Every predefined code list once (its largest dictionary), smallest markers first.
    static let everyCodeList: [MarkerDictionary] = Dictionary(grouping: Name.allCases, by: \.codeList).values
        .compactMap { names in names.max { named($0).count < named($1).count } }
        .sorted { ($0.markerSize, $0.openCVNumber) < ($1.markerSize, $1.openCVNumber) }
        .map { named($0) }

    public static var arucoOriginal: MarkerDictionary { named(.arucoOriginal) }
    public static var dict5x5_50: MarkerDictionary { named(.dict5x5_50) }
    public static var dict5x5_100: MarkerDictionary { named(.dict5x5_100) }
    public static var dict5x5_250: MarkerDictionary { named(.dict5x5_250) }
    public static var dict5x5_1000: MarkerDictionary { named(.dict5x5_1000) }

    private static let built = Mutex<[Name: MarkerDictionary]>([:])

    /// The dictionary with this name (each is built once, on first use).
    public static func named(_ name: Name) -> MarkerDictionary {
        if let dictionary = built.withLock({ $0[name] }) { return dictionary }
        let dictionary = MarkerDictionary(name)
        return built.withLock { all in
            if let first = all[name] { return first }
            all[name] = dictionary
            return dictionary
        }
    }

    /// A dictionary by OpenCV's or the short name; the error names every accepted one.
    public static func parse(_ text: String) throws -> MarkerDictionary {
        guard let name = Name(parsing: text) else {
            throw MarkerKitError.invalidArgument("unknown dictionary '\(text)' (known: \(Name.shortNames); OpenCV's names such as DICT_4X4_50 too)")
        }
        return named(name)
    }

    public let id: Name
    /// OpenCV's name, as written into files: `DICT_5X5_100`.
    public var name: String { id.rawValue }
    public var shortName: String { id.shortName }
    public let count: Int
    /// Cells per side of the data grid (4 to 7); the printed marker has a one-cell border around it.
    public let markerSize: Int
    /// OpenCV's `maxCorrectionBits` for this dictionary.
    public let maxCorrectionBits: Int
    /// Wrong cells a read may have and still count: `maxCorrectionBits` x 0.6 rounded down, as OpenCV's
    /// detector with its default `errorCorrectionRate` (0 for DICT_ARUCO_ORIGINAL, the 4x4 and AprilTag
    /// ones; 1 for the 5x5 ones; 3, 3, 3, 2 for DICT_6X6_50 to _1000; 5, 4, 4, 3 for the 7x7 ones).
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
    let codes: [UInt64]
    private let table: CodeTable

    public var description: String { name }

    /// The minimum code distances of OpenCV's dictionaries, by OpenCV's number (computed from the codes;
    /// `MarkerDictionaryTests` computes them again).
    private static let minimumCodeDistances = [4, 3, 3, 2, 8, 7, 6, 5, 13, 12, 11, 9, 19, 18, 17, 14, 0, 5, 9, 10, 11]

    private init(_ id: Name) {
        self.id = id
        let number = Int(id.openCVNumber)
        let parameters = OpenCVCodes.parameters[number]
        codes = Self.codes(of: id)
        markerSize = parameters.markerSize
        maxCorrectionBits = parameters.maxCorrectionBits
        minimumCodeDistance = Self.minimumCodeDistances[number]
        count = codes.count
        correctableBits = Int(Double(maxCorrectionBits) * 0.6)
        // A corrected read is refused when the grid is exactly a marker (in some turn) of a dictionary of the
        // same size from another list, so that neither reads the other's markers (OpenCV's detector does:
        // three DICT_ARUCO_ORIGINAL markers are one cell from a DICT_5X5_1000 code).
        var foreign = Set<UInt64>()
        if correctableBits > 0 {
            for other in Name.allCases where other.markerSize == id.markerSize && other.codeList != id.codeList {
                for code in Self.codes(of: other) {
                    for turn in 0..<4 { foreign.insert(MarkerBits(raw: code, side: markerSize).rotatedClockwise(turn).raw) }
                }
            }
        }
        table = CodeTable(codes: codes, side: markerSize, correctable: correctableBits, minimumDistance: minimumCodeDistance,
                          refusingCorrectionsTo: foreign)
    }

    /// The upright codes of a dictionary, in ID order: OpenCV's lists, cut to the dictionary's size.
    static func codes(of name: Name) -> [UInt64] {
        let count = OpenCVCodes.parameters[Int(name.openCVNumber)].count
        switch name {
        case .arucoOriginal: return (0..<1024).map { originalCode($0) }
        case .aprilTag16h5: return OpenCVCodes.apriltag16h5
        case .aprilTag25h9: return OpenCVCodes.apriltag25h9
        case .aprilTag36h10: return OpenCVCodes.apriltag36h10
        case .aprilTag36h11: return OpenCVCodes.apriltag36h11
        default:
            let list: [UInt64]
            switch name.markerSize {
            case 4: list = OpenCVCodes.dict4x4_1000
            case 5: list = OpenCVCodes.dict5x5_1000
            case 6: list = OpenCVCodes.dict6x6_1000
            default: list = OpenCVCodes.dict7x7_1000
            }
            return Array(list.prefix(count))
        }
    }

    public static func == (a: MarkerDictionary, b: MarkerDictionary) -> Bool { a.id == b.id }
    public func hash(into hasher: inout Hasher) { hasher.combine(id) }

    /// DICT_ARUCO_ORIGINAL's code for `id`: row y holds the word for the two bits of `id` at 4^(4-y).
    private static func originalCode(_ id: Int) -> UInt64 {
        var raw: UInt64 = 0
        for y in 0..<5 {
            let word = rowWords[(id >> (2 * (4 - y))) & 3]
            for x in 0..<5 where word & (1 << (4 - x)) != 0 { raw |= 1 << UInt64(y * 5 + x) }
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
        return MarkerBits(raw: codes[id], side: markerSize)
    }

    /// Reads an observed grid in all four orientations; nil when no turn of it is a marker (or the grid
    /// is of another size).
    public func decode(_ observed: MarkerBits) -> Decoded? {
        guard observed.side == markerSize else { return nil }
        return table.lookup(observed.raw)
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
                return "\(id) turned \(degrees)° is \(counted(distance, "cell")) from \(other)"
            }
            if distance == 0 { return "\(id) is symmetric under a \(degrees)° turn: its orientation cannot be read" }
            return "\(id) turned \(degrees)° is \(counted(distance, "cell")) from itself: its orientation is fragile"
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
            let turned = MarkerBits(raw: codes[a], side: markerSize).rotatedClockwise(turn).raw
            for b in 0..<count where a != b { best = min(best, (turned ^ codes[b]).nonzeroBitCount) }
        }
        return best
    }
}

/// The code lookup of a dictionary, as OpenCV's `identify` decides (the lowest ID whose best turn is within
/// `correctable` wrong cells, in that turn), built once per dictionary, allocating nothing per read:
/// - `table`, when it is small (up to `tableLimit` grids): every grid within reach of some turn of some
///   code, in one hash, so a read costs one lookup (1000 codes x 4 turns x 26 grids for DICT_5X5_1000,
///   4000 grids for the 4x4 and AprilTag ones, which correct nothing);
/// - `blocks` otherwise (DICT_6X6_*, DICT_7X7_*: DICT_7X7_1000 correcting 3 cells would need ~74M grids):
///   the cells split into correctable + 1 runs of bits; a grid within `correctable` cells of a code agrees
///   with it exactly on one run at least (pigeonhole), so each run indexes the turned codes by its value
///   and a read compares only the codes that share a run with it (a handful, not 4000).
private final class CodeTable: @unchecked Sendable {
    static let tableLimit = 300_000

    /// Grid -> id << 2 | rotation (table mode; empty in block mode).
    private let entries: [UInt64: UInt32]
    /// Block mode: each turned code, at id << 2 | rotation.
    private let turned: [UInt64]
    /// Block mode: the runs (first bit, bit count), and per run the turned-code indices sorted by value
    /// of the run (`members`), starting at `starts[run][value]` (CSR layout: one flat array per run).
    private let runs: [(shift: Int, width: Int)]
    private let starts: [[Int32]]
    private let members: [[Int32]]
    private let side: Int
    private let correctable: Int
    private let foreign: Set<UInt64>
    private let lock = NSLock()
    private var cachedAmbiguities: [Ambiguity]?
    private var cachedIDs: Set<Int>?

    typealias Ambiguity = MarkerDictionary.Ambiguity

    /// Grids within `correctable` cells of one code: the sum of C(cells, k) for k up to `correctable`.
    static func ball(cells: Int, radius: Int) -> Int {
        var total = 0, term = 1
        for k in 0...radius {
            if k > 0 { term = term * (cells - k + 1) / k }
            total += term
        }
        return total
    }

    init(codes: [UInt64], side: Int, correctable: Int, minimumDistance: Int, refusingCorrectionsTo foreign: Set<UInt64>) {
        let cells = side * side
        self.side = side
        self.correctable = correctable
        self.foreign = foreign
        let turnsOfCodes = codes.map { code in (0..<4).map { MarkerBits(raw: code, side: side).rotatedClockwise($0).raw } }
        if codes.count * 4 * Self.ball(cells: cells, radius: correctable) <= Self.tableLimit {
            var entries: [UInt64: UInt32] = [:]
            entries.reserveCapacity(codes.count * 4 * Self.ball(cells: cells, radius: correctable))
            // OpenCV's identify: the first ID (in list order) whose best turn is within reach wins, in that best
            // turn (the first of equals). Inserting ID by ID, nearest grids first, never overwriting, gives that.
            for (id, turns) in turnsOfCodes.enumerated() {
                for wrong in 0...correctable {
                    for (rotation, turned) in turns.enumerated() {
                        Self.forEachGrid(near: turned, cells: cells, flipping: wrong) { grid in
                            if wrong > 0 && foreign.contains(grid) { return }
                            if entries[grid] == nil { entries[grid] = UInt32(id) << 2 | UInt32(rotation) }
                        }
                    }
                }
            }
            self.entries = entries
            (turned, runs, starts, members) = ([], [], [], [])
        } else {
            entries = [:]
            turned = turnsOfCodes.flatMap { $0 }
            let count = correctable + 1
            runs = (0..<count).map { k in (shift: k * cells / count, width: (k + 1) * cells / count - k * cells / count) }
            var starts: [[Int32]] = [], members: [[Int32]] = []
            for run in runs {
                let mask = (UInt64(1) << UInt64(run.width)) - 1
                let values = turned.map { Int(($0 >> UInt64(run.shift)) & mask) }
                var start = [Int32](repeating: 0, count: (1 << run.width) + 1)
                for value in values { start[value + 1] += 1 }
                for v in 0..<(1 << run.width) { start[v + 1] += start[v] }
                var fill = start
                var member = [Int32](repeating: 0, count: turned.count)
                for (index, value) in values.enumerated() { member[Int(fill[value])] = Int32(index); fill[value] += 1 }
                starts.append(start)
                members.append(member)
            }
            (self.starts, self.members) = (starts, members)
        }
    }

    /// Every grid with exactly `flips` of the `cells` cells of `code` flipped.
    private static func forEachGrid(near code: UInt64, cells: Int, flipping flips: Int, _ body: (UInt64) -> Void) {
        func recurse(_ grid: UInt64, from cell: Int, left: Int) {
            if left == 0 { body(grid); return }
            guard cell < cells else { return }
            for c in cell..<cells { recurse(grid ^ (1 << UInt64(c)), from: c + 1, left: left - 1) }
        }
        recurse(code, from: 0, left: flips)
    }

    func lookup(_ grid: UInt64) -> MarkerDictionary.Decoded? {
        if runs.isEmpty {
            guard let entry = entries[grid] else { return nil }
            return MarkerDictionary.Decoded(id: Int(entry >> 2), rotation: Int(entry & 3))
        }
        // Block mode: the lowest ID within reach, in its nearest turn (the first of equals).
        var best = Int.max, bestDistance = Int.max
        turned.withUnsafeBufferPointer { turned in
            for (k, run) in runs.enumerated() {
                let value = Int((grid >> UInt64(run.shift)) & ((UInt64(1) << UInt64(run.width)) - 1))
                starts[k].withUnsafeBufferPointer { start in
                    members[k].withUnsafeBufferPointer { member in
                        for m in Int(start[value])..<Int(start[value + 1]) {
                            let index = Int(member[m])
                            guard index >> 2 <= best >> 2 else { continue }
                            let distance = (turned[index] ^ grid).nonzeroBitCount
                            guard distance <= correctable else { continue }
                            if index >> 2 < best >> 2 || distance < bestDistance || (distance == bestDistance && index < best) {
                                (best, bestDistance) = (index, distance)
                            }
                        }
                    }
                }
            }
        }
        guard best != Int.max, bestDistance == 0 || !foreign.contains(grid) else { return nil }
        return MarkerDictionary.Decoded(id: best >> 2, rotation: best & 3)
    }

    func ambiguities(codes: [UInt64], limit: Int) -> [Ambiguity] {
        lock.withLock {
            if let cachedAmbiguities { return cachedAmbiguities }
            var found: [Ambiguity] = []
            let turned = codes.map { code in (0..<4).map { MarkerBits(raw: code, side: side).rotatedClockwise($0).raw } }
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

    func ambiguousIDs(codes: [UInt64], limit: Int) -> Set<Int> {
        if let ids = lock.withLock({ cachedIDs }) { return ids }
        let ids = Set(ambiguities(codes: codes, limit: limit).map(\.id))
        lock.withLock { cachedIDs = ids }
        return ids
    }
}

/// The classic 5x5 ArUco code, bit for bit OpenCV's `DICT_ARUCO_ORIGINAL`: each row is one of four
/// 5-bit words (2 data bits in columns 1 and 3, 3 check bits), the top row most significant, 1024 IDs.
/// The code corrects no errors: a grid is a marker only when every row is a valid word.
public struct MarkerDictionary: Sendable {
    /// The row words for the values 0...3 (column 0 first).
    public static let rowWords = [0b10000, 0b10111, 0b01001, 0b01110]

    public static let arucoOriginal = MarkerDictionary()

    public let name = "DICT_ARUCO_ORIGINAL"
    public let count = 1024
    public let markerSize = 5

    /// A marker found in a grid: which ID, and how many clockwise quarter turns the observed grid is
    /// from the marker as printed upright.
    public struct Decoded: Hashable, Sendable {
        public let id: Int
        public let rotation: Int
    }

    public func contains(_ id: Int) -> Bool { (0..<count).contains(id) }

    /// The data cells of marker `id`.
    public func bits(for id: Int) -> MarkerBits {
        precondition(contains(id), "marker id \(id) outside 0..<\(count)")
        var raw: UInt32 = 0
        for y in 0..<5 {
            let value = (id >> (2 * (4 - y))) & 3
            let word = Self.rowWords[value]
            for x in 0..<5 where word & (1 << (4 - x)) != 0 { raw |= 1 << UInt32(y * 5 + x) }
        }
        return MarkerBits(raw: raw)
    }

    /// The ID whose rows are exactly these words in this orientation, if any.
    public func id(upright bits: MarkerBits) -> Int? {
        var id = 0
        for y in 0..<5 {
            guard let value = Self.rowWords.firstIndex(of: bits.row(y)) else { return nil }
            id = id << 2 | value
        }
        return id
    }

    /// Reads an observed grid in all four orientations. Returns nil when no orientation is a marker.
    /// The first matching orientation wins; only a grid that is symmetric under rotation (ID 1023 at
    /// 180 degrees) matches in more than one, always as the same ID.
    public func decode(_ observed: MarkerBits) -> Decoded? {
        for rotation in 0..<4 {
            if let id = id(upright: observed.rotatedClockwise(4 - rotation)) {
                return Decoded(id: id, rotation: rotation)
            }
        }
        return nil
    }

    /// A marker whose orientation cannot be trusted.
    public struct Ambiguity: Hashable, Sendable, CustomStringConvertible {
        public let id: Int
        /// The other ID it can be mistaken for when turned (nil when the marker is symmetric itself).
        public let other: Int?
        /// The turn, in degrees clockwise, under which the confusion happens.
        public let degrees: Int
        /// Cells that differ under that turn (0 for a symmetric marker).
        public let distance: Int

        public var description: String {
            if let other {
                return "\(id) turned \(degrees)° is \(distance) cell\(distance == 1 ? "" : "s") from \(other)"
            }
            return "\(id) is symmetric under a \(degrees)° turn: its orientation cannot be read"
        }
    }

    /// Every marker that is symmetric under a turn, and every pair that one flipped cell confuses under a
    /// turn, computed from the code itself. Each pair is listed once for each of its two IDs.
    public static let ambiguities: [Ambiguity] = {
        let dictionary = MarkerDictionary.arucoOriginal
        let ids = 0..<dictionary.count
        let turned: [[MarkerBits]] = ids.map { id in (0..<4).map { dictionary.bits(for: id).rotatedClockwise($0) } }
        var found: [Ambiguity] = []
        for a in ids {
            for turn in 1..<4 {
                if turned[a][turn] == turned[a][0] {
                    found.append(Ambiguity(id: a, other: nil, degrees: 90 * turn, distance: 0))
                }
                for b in ids where b != a {
                    let d = turned[a][turn].distance(to: turned[b][0])
                    if d <= 1 { found.append(Ambiguity(id: a, other: b, degrees: 90 * turn, distance: d)) }
                }
            }
        }
        return found
    }()

    /// The IDs that sheets leave out unless asked: `ambiguities`' IDs.
    public static let ambiguousIDs: Set<Int> = Set(ambiguities.map(\.id))

    /// The smallest number of differing cells between two different IDs, one of them turned by
    /// `degrees` (0, 90, 180 or 270). (An ID against itself turned is in `ambiguities`.)
    public func minimumDistance(degrees: Int) -> Int {
        let turn = degrees / 90
        let all = (0..<count).map { bits(for: $0) }
        var best = Int.max
        for a in 0..<count {
            let turned = all[a].rotatedClockwise(turn)
            for b in 0..<count where a != b {
                best = min(best, turned.distance(to: all[b]))
            }
        }
        return best
    }
}

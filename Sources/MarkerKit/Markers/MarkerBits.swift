/// The 5x5 data cells of a marker, row-major from the top-left, packed in 25 bits: bit `y*5+x` is the
/// cell in column x, row y; a set bit is a white cell. The black border ring is implied.
public struct MarkerBits: Hashable, Sendable, CustomStringConvertible {
    public static let side = 5
    public let raw: UInt32

    public init(raw: UInt32) { self.raw = raw & 0x1FF_FFFF }

    /// From 25 cells, row-major, true = white.
    public init(cells: [Bool]) {
        precondition(cells.count == 25, "a 5x5 marker has 25 cells")
        var raw: UInt32 = 0
        for (i, white) in cells.enumerated() where white { raw |= 1 << UInt32(i) }
        self.init(raw: raw)
    }

    public func isWhite(x: Int, y: Int) -> Bool { raw & (1 << UInt32(y * 5 + x)) != 0 }

    /// Row y as a 5-bit word, column 0 in the most significant place ("10111" reads as written).
    public func row(_ y: Int) -> Int {
        (0..<5).reduce(0) { word, x in word << 1 | (isWhite(x: x, y: y) ? 1 : 0) }
    }

    /// The grid turned a quarter turn clockwise, `times` times.
    public func rotatedClockwise(_ times: Int = 1) -> MarkerBits {
        var bits = self
        for _ in 0..<(((times % 4) + 4) % 4) {
            var raw: UInt32 = 0
            for y in 0..<5 {
                for x in 0..<5 where bits.isWhite(x: y, y: 4 - x) {
                    raw |= 1 << UInt32(y * 5 + x)
                }
            }
            bits = MarkerBits(raw: raw)
        }
        return bits
    }

    /// Number of cells that differ.
    public func distance(to other: MarkerBits) -> Int { (raw ^ other.raw).nonzeroBitCount }

    /// The full 7x7 printed grid, border included, row-major, true = white.
    public var printedCells: [Bool] {
        (0..<7).flatMap { y in
            (0..<7).map { x in
                (1...5).contains(x) && (1...5).contains(y) && isWhite(x: x - 1, y: y - 1)
            }
        }
    }

    /// Five lines of 0/1, white = 1.
    public var description: String {
        (0..<5).map { y in (0..<5).map { isWhite(x: $0, y: y) ? "1" : "0" }.joined() }.joined(separator: "/")
    }
}

/// The data cells of a square marker of `side` x `side` cells (4 to 7, OpenCV's marker sizes), row-major
/// from the top-left, packed in side² bits: bit `y*side+x` is the cell in column x, row y; a set bit is a
/// white cell. The black border ring is implied.
public struct MarkerBits: Hashable, Sendable, CustomStringConvertible {
    /// The marker sizes OpenCV's predefined dictionaries have.
    public static let sides = 4...7
    public let raw: UInt64
    /// Cells per side of the data grid.
    public let side: Int

    public init(raw: UInt64, side: Int = 5) {
        precondition(Self.sides.contains(side), "markers have 4 to 7 data cells a side, not \(side)")
        self.side = side
        self.raw = raw & Self.mask(side: side)
    }

    /// The side² low bits set.
    @inline(__always) public static func mask(side: Int) -> UInt64 { (1 << UInt64(side * side)) - 1 }

    /// From side² cells, row-major, true = white.
    public init(cells: [Bool]) {
        guard let side = Self.sides.first(where: { $0 * $0 == cells.count }) else {
            preconditionFailure("a marker has 16, 25, 36 or 49 data cells, not \(cells.count)")
        }
        var raw: UInt64 = 0
        for (i, white) in cells.enumerated() where white { raw |= 1 << UInt64(i) }
        self.init(raw: raw, side: side)
    }

    public var cellCount: Int { side * side }

    public func isWhite(x: Int, y: Int) -> Bool { raw & (1 << UInt64(y * side + x)) != 0 }

    /// Row y as a side-bit word, column 0 in the most significant place ("10111" reads as written).
    public func row(_ y: Int) -> Int {
        (0..<side).reduce(0) { word, x in word << 1 | (isWhite(x: x, y: y) ? 1 : 0) }
    }

    /// The grid turned a quarter turn clockwise, `times` times.
    public func rotatedClockwise(_ times: Int = 1) -> MarkerBits {
        var bits = self
        let n = side
        for _ in 0..<(((times % 4) + 4) % 4) {
            var raw: UInt64 = 0
            for y in 0..<n {
                for x in 0..<n where bits.isWhite(x: y, y: n - 1 - x) {
                    raw |= 1 << UInt64(y * n + x)
                }
            }
            bits = MarkerBits(raw: raw, side: n)
        }
        return bits
    }

    /// Number of cells that differ (of two grids of one size).
    public func distance(to other: MarkerBits) -> Int { (raw ^ other.raw).nonzeroBitCount }

    /// The full (side+2)² printed grid, border included, row-major, true = white.
    public var printedCells: [Bool] {
        let n = side
        return (0..<(n + 2)).flatMap { y in
            (0..<(n + 2)).map { x in
                (1...n).contains(x) && (1...n).contains(y) && isWhite(x: x - 1, y: y - 1)
            }
        }
    }

    /// Lines of 0/1, white = 1, separated by "/".
    public var description: String {
        (0..<side).map { y in (0..<side).map { isWhite(x: $0, y: y) ? "1" : "0" }.joined() }.joined(separator: "/")
    }
}

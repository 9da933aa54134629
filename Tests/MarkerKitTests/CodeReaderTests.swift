import Testing
@testable import MarkerKit

@Suite struct CodeReaderTests {
    let quad = Quad(Point2(x: 0, y: 0), Point2(x: 10, y: 0), Point2(x: 10, y: 10), Point2(x: 0, y: 10))

    /// A sampled grid of marker `bits` (black border), every cell sure, with `unsure` cells (data index
    /// y*5+x) read half light.
    func grid(_ bits: MarkerBits, unsure: [Int] = [], fraction: Double = 0.55) -> CellSampler.Grid {
        var grid = CellSampler.Grid()
        for y in 1...5 { for x in 1...5 { grid.fractions[y * 7 + x] = bits.isWhite(x: x - 1, y: y - 1) ? 1 : 0 } }
        for cell in unsure {
            let white = bits.isWhite(x: cell % 5, y: cell / 5)
            grid.fractions[(cell / 5 + 1) * 7 + cell % 5 + 1] = white ? fraction : 1 - fraction
        }
        return grid
    }

    @Test func sureGridsReadAsBefore() {
        let d = MarkerDictionary.arucoOriginal
        #expect(CodeReader.read(grid: grid(d.bits(for: 213)), quad: quad, dictionary: d, parameters: DetectorParameters())?.id == 213)
    }

    /// An unsure cell whose other value is no marker: the read stands.
    @Test func unsureCellsThatCannotChangeTheReadAreAllowed() {
        let d = MarkerDictionary.arucoOriginal
        let read = CodeReader.read(grid: grid(d.bits(for: 213), unsure: [0, 12]), quad: quad, dictionary: d, parameters: DetectorParameters())
        #expect(read?.id == 213)
        var strict = DetectorParameters()
        strict.maxUnsureCells = 0
        #expect(CodeReader.read(grid: grid(d.bits(for: 213), unsure: [0]), quad: quad, dictionary: d, parameters: strict) == nil)
    }

    /// 255 and 1022 are one cell apart at 180 degrees: with that cell unsure, the read could be either, so
    /// it is refused; too many unsure cells are refused as well.
    @Test func unsureCellsThatCouldGiveAnotherMarkerAreRefused() throws {
        let d = MarkerDictionary.arucoOriginal
        let a = d.bits(for: 255), b = d.bits(for: 1022).rotatedClockwise(2)
        let differing = (0..<25).filter { (a.raw ^ b.raw) & (1 << UInt64($0)) != 0 }
        try #require(differing.count == 1)
        #expect(CodeReader.read(grid: grid(a, unsure: differing), quad: quad, dictionary: d, parameters: DetectorParameters()) == nil)
        #expect(CodeReader.read(grid: grid(d.bits(for: 213), unsure: [0, 6, 12]), quad: quad, dictionary: d, parameters: DetectorParameters()) == nil)
    }

    /// DICT_5X5_100's codes differ in at least 7 cells, so a read may leave 4 cells unknown besides the one
    /// it corrects (4 + 2 x 1 < 7): a marker bent around a bottle, its cells off the straight grid, reads.
    /// A fifth unsure cell is refused; DICT_ARUCO_ORIGINAL keeps 2.
    @Test func fiveByFiveAllowsAsManyUnsureCellsAsItsDistanceCovers() {
        let d = MarkerDictionary.dict5x5_100
        #expect(d.erasableCells == 4)
        let bits = d.bits(for: 72)
        #expect(CodeReader.read(grid: grid(bits, unsure: [1, 7, 13, 19]), quad: quad, dictionary: d, parameters: DetectorParameters())?.id == 72)
        #expect(CodeReader.read(grid: grid(bits, unsure: [1, 7, 13, 19, 24]), quad: quad, dictionary: d, parameters: DetectorParameters()) == nil)
        // Beyond 2 unsure cells no sure cell may be wrong besides (a 6x6 marker read as 5x5_100's ID 10 that
        // way in the cross-talk test); with 2 the usual correction stands.
        let oneWrong = MarkerBits(raw: bits.raw ^ (1 << 3))
        #expect(CodeReader.read(grid: grid(oneWrong, unsure: [1, 7, 13]), quad: quad, dictionary: d, parameters: DetectorParameters()) == nil)
        #expect(CodeReader.read(grid: grid(oneWrong, unsure: [1, 7]), quad: quad, dictionary: d, parameters: DetectorParameters())?.id == 72)
        #expect(MarkerDictionary.arucoOriginal.erasableCells == 0)
        #expect(MarkerDictionary.dict5x5_50.erasableCells == 5 && MarkerDictionary.dict5x5_250.erasableCells == 3
                && MarkerDictionary.dict5x5_1000.erasableCells == 2)
    }
}

import Testing
@testable import MarkerKit

@Suite struct LengthTests {
    @Test(arguments: [("40mm", 40.0), ("4cm", 40.0), ("1.5in", 38.1), ("0.04m", 40.0), ("72pt", 25.4),
                      ("25 mm", 25.0), ("2.5MM", 2.5), ("1inch", 25.4)])
    func parsesEveryUnit(text: String, millimetres: Double) throws {
        #expect(abs(try Length(parsing: text).millimetres - millimetres) < 1e-9)
    }

    @Test(arguments: ["40", "mm", "40furlongs", "", "abc", "nanmm", "1e400mm"])
    func refusesLengthsWithoutAUsableUnitOrNumber(text: String) {
        #expect(throws: MarkerKitError.self) { try Length(parsing: text) }
    }

    @Test func positiveAndNonNegativeBounds() throws {
        #expect(throws: MarkerKitError.self) { try Length.positive("0mm", what: "--size") }
        #expect(throws: MarkerKitError.self) { try Length.positive("-3mm", what: "--size") }
        #expect(throws: MarkerKitError.self) { try Length.nonNegative("-1mm", what: "--gap") }
        #expect(try Length.nonNegative("0mm", what: "--gap").millimetres == 0)
    }

    @Test func messagesNameTheInputAndTheFix() {
        do {
            _ = try Length.positive("40", what: "--size")
            Issue.record("a bare number must be refused")
        } catch {
            #expect("\(error)".contains("--size '40' has no unit"))
            #expect("\(error)".contains("40mm"))
        }
    }
}

@Suite struct IDSelectionTests {
    @Test func listsAndRanges() throws {
        #expect(try IDSelection(parsing: "3,7,100-103").ids == [3, 7, 100, 101, 102, 103])
        #expect(try IDSelection(parsing: "0-3, 2, 5").ids == [0, 1, 2, 3, 5])
        #expect(try IDSelection(parsing: "1023").ids == [1023])
    }

    @Test(arguments: ["1024", "5-3", "-1", "a", "1,,2", "", "1-2-3", "0-1024"])
    func refusesBadLists(text: String) {
        #expect(throws: MarkerKitError.self) { try IDSelection(parsing: text) }
    }

    @Test func ambiguousIDsLeaveRangesButStayWhenNamed() throws {
        let range = try IDSelection(parsing: "250-260").printable(includeAmbiguous: false)
        #expect(range.dropped == [255])
        #expect(!range.kept.contains(255) && range.kept.count == 10)
        #expect(try IDSelection(parsing: "250-260").printable(includeAmbiguous: true).kept.contains(255))
        #expect(try IDSelection(parsing: "255,1023").printable(includeAmbiguous: false).kept == [255, 1023])
    }

    @Test func rangesAreDescribedAsTyped() {
        #expect(IDRanges.describe([0, 1, 2, 3, 7, 9, 10]) == "0-3,7,9-10")
        #expect(IDRanges.describe([]) == "")
    }
}

@Suite struct PageSizeTests {
    @Test func presetsComeFromTheTemplates() throws {
        let a4 = try PageSize(parsing: "a4")
        #expect(a4.width.millimetres == 210 && a4.height.millimetres == 297)
        #expect(try PageSize(parsing: "Letter").width.millimetres == 215.9)
        #expect(try PageSize.presets().map(\.name) == ["A0", "A1", "A2", "A3", "A4", "A5", "Letter", "Legal", "Tabloid"])
        #expect(a4.landscape.width.millimetres == 297 && a4.landscape.portrait == a4)
    }

    @Test func customSizesCarryAUnit() throws {
        let mm = try PageSize(parsing: "200x300mm")
        #expect(mm.width.millimetres == 200 && mm.height.millimetres == 300)
        let inches = try PageSize(parsing: "8.5x11in")
        #expect(abs(inches.width.millimetres - 215.9) < 1e-9 && abs(inches.height.millimetres - 279.4) < 1e-9)
        #expect(try PageSize(parsing: "10cmx150mm").width.millimetres == 100)
    }

    @Test(arguments: ["a7", "200x300", "x300mm", "0x300mm", "letterx"])
    func refusesUnknownPages(text: String) {
        #expect(throws: MarkerKitError.self) { try PageSize(parsing: text) }
    }
}

import Foundation
import Testing
@testable import MarkerKit

/// The numbers a user or a request gives, fed to the library's own parsing and value types
/// as `generate` and the server's sheet form feed them. Each is accepted or refused with one line
/// (`invalidArgument`); none traps.
@Suite struct NumericInputTests {
    static let numbers = ["0", "-1", "9223372036854775807", "1e308", "nan", "inf", "-inf",
                          "1234567890123456789012345678901234567890", "99999999999999999999999999999999999", "1e-300"]
    static let extremeInts = [0, -1, 1, Int.max, Int.min, Int.max - 1, Int.min + 1]

    /// One line, an invalid argument; nothing else thrown.
    static func refusedOnce(_ body: () throws -> Void, _ what: String) {
        do {
            try body()
        } catch let MarkerKitError.invalidArgument(message) {
            #expect(!message.isEmpty && !message.contains("\n"), "\(what): \(message)")
        } catch {
            Issue.record("\(what): \(error) is not an invalid argument")
        }
    }

    @Test(arguments: numbers)
    func lengthsAreInRangeOrRefused(_ number: String) {
        for unit in ["mm", "cm", "m", "in", "pt"] {
            let text = number + unit
            for parse in [{ try Length(parsing: text) }, { try Length.positive(text) }, { try Length.nonNegative(text) }] {
                do {
                    let length = try parse()
                    #expect(length.millimetres.isFinite && abs(length.millimetres) <= Length.longest.millimetres, "\(text)")
                    #expect(!length.description.isEmpty)
                } catch let MarkerKitError.invalidArgument(message) {
                    #expect(!message.contains("\n"), "\(text): \(message)")
                } catch {
                    Issue.record("\(text): \(error)")
                }
            }
        }
        #expect(throws: MarkerKitError.self) { try Length.positive("1e308m") }
        #expect(throws: MarkerKitError.self) { try Length.positive("99999999999999999999999999999999999mm") }
        #expect(throws: MarkerKitError.self) { try Length.positive("1e-300mm") }
    }

    /// `Length.format` is used for any Double a message shows; it must never trap.
    @Test func formattingAnyDoubleNeverTraps() {
        for v in [0, -1, 1e308, -1e308, .infinity, -.infinity, .nan, Double(Int.max), 9.3e18, 1e35, 0.0005, -0.0004, 12.5, .ulpOfOne] {
            #expect(!Length.format(v).isEmpty, "\(v)")
        }
        #expect(Length.format(1e35) == "1e+35" && Length.format(-1e308) == "-1e+308" && Length.format(.nan) == "nan")
        #expect(Length.format(40) == "40" && Length.format(12.5) == "12.5")
    }

    @Test func charucoFirstIDsAtTheEdgesOfInt() throws {
        let square = Length.mm(30), marker = Length.mm(20)
        for first in Self.extremeInts where first != 0 && first != 1 {
            Self.refusedOnce({ _ = try CharucoBoard(squaresX: 5, squaresY: 7, square: square, marker: marker, firstID: first) }, "first ID \(first)")
        }
        // The last first ID that fits, and one past it.
        let count = CharucoBoard.markerCount(squaresX: 5, squaresY: 7, legacy: false)
        let last = MarkerDictionary.arucoOriginal.count - count
        #expect(try CharucoBoard(squaresX: 5, squaresY: 7, square: square, marker: marker, firstID: last).markers.last?.id == 1023)
        Self.refusedOnce({ _ = try CharucoBoard(squaresX: 5, squaresY: 7, square: square, marker: marker, firstID: last + 1) }, "one past")
        for (x, y) in [(Int.max, Int.max), (Int.min, 5), (0, 0), (-1, -1), (101, 5)] {
            Self.refusedOnce({ _ = try CharucoBoard(squaresX: x, squaresY: y, square: square, marker: marker) }, "\(x)x\(y)")
        }
        for size in [0, -1, 1e308, .infinity, -.infinity, .nan] {
            Self.refusedOnce({ _ = try CharucoBoard(squaresX: 5, squaresY: 7, square: .mm(size), marker: marker) }, "square \(size)")
            Self.refusedOnce({ _ = try Checkerboard(innerColumns: 9, innerRows: 6, square: .mm(size)) }, "checkerboard square \(size)")
        }
    }

    /// What the server's sheet form does with its fields (SheetRequest.make), with the extremes.
    @Test(arguments: numbers)
    func sheetFormFieldsAreAcceptedOrRefused(_ number: String) throws {
        let page = try PageSize(parsing: "a4")
        // Markers: IDs and size.
        for (ids, size) in [("0", number + "mm"), ("0-" + number, "40mm"), (number, "40mm")] {
            do {
                let selection = try IDSelection(parsing: ids)
                let kept = selection.printable(includeAmbiguous: false).kept
                let sheet = MarkerSheet(ids: kept, side: try Length.positive(size), page: page, margin: .mm(10), gap: .mm(10))
                _ = try sheet.document()
            } catch let MarkerKitError.invalidArgument(message) {
                #expect(!message.contains("\n"), "\(ids) \(size): \(message)")
            }
        }
        // Pages.
        for text in ["\(number)x\(number)mm", "\(number)mmx297mm", "210x\(number)in"] {
            Self.refusedOnce({ _ = try PageSize(parsing: text) }, text)
        }
        // ChArUco and checkerboard shapes.
        Self.refusedOnce({ _ = try CharucoBoard.parseSquares("\(number)x\(number)") }, "squares \(number)")
        Self.refusedOnce({ _ = try Checkerboard.parseInnerCorners("\(number)x\(number)") }, "inner \(number)")
        Self.refusedOnce({ _ = try ImageSize.parse("\(number)x\(number)") }, "image size \(number)")
    }

    /// Whole numbers with a range: every extreme outside it is refused, naming the range.
    @Test func rangesNameThemselves() throws {
        for value in Self.extremeInts where !(1...100_000).contains(value) {
            do {
                _ = try InputRange.check(value, in: 1...100_000, "render count")
                Issue.record("\(value) accepted")
            } catch let MarkerKitError.invalidArgument(message) {
                #expect(message == "render count \(value) is outside 1-100000")
            }
        }
        for value in [Double.nan, .infinity, -.infinity, 1e308, -1] {
            #expect(throws: MarkerKitError.self) { try InputRange.check(value, in: 10...4800, "resolution") }
        }
        #expect(try InputRange.check(300.0, in: 10...4800, "resolution") == 300)
    }

    /// A PNG page at the largest page and resolution is refused by size, never by a trap.
    @Test func hugePagesAtHighResolutionAreRefused() throws {
        let page = try PageSize(parsing: "1000000x1000000mm")
        let sheet = MarkerSheet(ids: [0], side: .mm(40), page: page, margin: .mm(10), gap: .mm(10))
        Self.refusedOnce({ _ = try sheet.document().render(as: .png, dpi: 4800) }, "a 1 km page at 4800 dpi")
        #expect(SheetDocument.pixelSize(of: page, dpi: 1e308).width == Int.max)
    }
}

import Testing
@testable import MarkerKit

@Suite struct LayoutTests {
    let a4 = PageSize(name: "A4", width: .mm(210), height: .mm(297))

    func layout(side: Double, page: PageSize? = nil, margin: Double = 10, gap: Double = 10) throws -> MarkerSheetLayout {
        try MarkerSheetLayout(page: page ?? a4, side: .mm(side), margin: .mm(margin), gap: .mm(gap), labels: true,
                              footer: true, style: SheetStyle.bundled())
    }

    @Test func markersKeepQuietZonesAndStayInsideTheMargins() throws {
        let sheet = try layout(side: 40)
        let placements = sheet.pages(for: Array(0..<30))
        #expect(placements.count == 3 && placements[0].count == sheet.perPage)
        for page in placements {
            for p in page {
                #expect(p.box.x >= 10 - 1e-9 && p.box.maxX <= 200 + 1e-9)
                #expect(p.box.y >= 10 - 1e-9 && p.box.maxY <= 287 - sheet.footerHeight + 1e-9)
                #expect(abs(p.marker.x - p.box.x - 40.0 / 7) < 1e-9)
            }
            for (a, b) in zip(page, page.dropFirst()) where abs(a.marker.y - b.marker.y) < 1e-9 {
                #expect(b.marker.x - a.marker.maxX >= 2 * 40.0 / 7 + 10 - 1e-9)
            }
        }
    }

    @Test func aMarkerTooLargeNamesTheLargestThatFits() throws {
        do {
            _ = try layout(side: 300)
            Issue.record("a 300 mm marker cannot fit on A4")
        } catch {
            let message = "\(error)"
            #expect(message.contains("does not fit on A4"))
            let largest = try #require(Double(message.split(separator: " ").reversed().dropFirst().first ?? ""))
            #expect(try layout(side: largest).perPage == 1)
            #expect(throws: MarkerKitError.self) { try layout(side: largest + 0.1) }
        }
    }

    @Test func checkerboardTooLargeNamesLargestSquareAndABiggerPage() throws {
        let board = try Checkerboard(innerColumns: 9, innerRows: 6, square: .mm(25))
        #expect(throws: MarkerKitError.self) { try CheckerboardSheet(board: board, page: a4, margin: .mm(10)) }
        do {
            _ = try CheckerboardSheet(board: board, page: a4, margin: .mm(10))
        } catch {
            #expect("\(error)".contains("the largest square that fits is 20.6 mm"))
            #expect("\(error)".contains("or print it on A3"))
        }
        let letter = try PageSize(parsing: "letter")
        do {
            _ = try CheckerboardSheet(board: board, page: letter, margin: .mm(10))
        } catch {
            #expect("\(error)".contains("or print it on Tabloid"))
        }
        let fits = try Checkerboard(innerColumns: 9, innerRows: 6, square: .mm(20.6))
        #expect(try CheckerboardSheet(board: fits, page: a4, margin: .mm(10)).page.isLandscape)
        #expect(throws: MarkerKitError.self) { try CheckerboardSheet(board: fits, page: a4, margin: .mm(10), turn: false) }
    }

    @Test func checkerboardBoundsAndSymmetry() throws {
        #expect(throws: MarkerKitError.self) { try Checkerboard(innerColumns: 2, innerRows: 6, square: .mm(10)) }
        #expect(try Checkerboard.parseInnerCorners("9x6") == (9, 6))
        #expect(throws: MarkerKitError.self) { try Checkerboard.parseInnerCorners("9by6") }
        #expect(try !Checkerboard(innerColumns: 9, innerRows: 6, square: .mm(10)).isSymmetric)
        #expect(try Checkerboard(innerColumns: 8, innerRows: 6, square: .mm(10)).isSymmetric)
    }
}

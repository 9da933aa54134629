import Foundation
import Testing
@testable import MarkerKit

@Suite struct PNGResolutionTests {
    @Test func crcMatchesThePNGSpecification() {
        // The IEND chunk's CRC is fixed by the specification.
        #expect(PNGResolution.crc32(Data("IEND".utf8)) == 0xAE42_6082)
    }

    @Test func dpiIsStoredAndReadBack() throws {
        let document = SheetDocument(title: "t", pages: [
            SheetDocument.Page(size: PageSize(name: "t", width: .mm(20), height: .mm(10))) { canvas in
                canvas.fill([Rect(x: 0, y: 0, width: 10, height: 10)])
            },
        ])
        let png = try document.render(as: .png, dpi: 254)[0]
        #expect(try PNGResolution.dpi(of: png).map { abs($0 - 254) < 0.01 } == true)
        // 20 mm at 254 dpi is 200 pixels: IHDR width.
        let width = png[16..<20].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        #expect(width == 200)
        #expect(png.range(of: Data("pHYs".utf8)) != nil)
    }
}

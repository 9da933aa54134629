import Foundation
import Testing
@testable import MarkerKit

/// Acceptance: what is printed is what was asked for, checked by OpenCV's own detector
/// on rasterizations made by independent renderers (poppler for PDF, librsvg for SVG).
@Suite struct SheetAcceptanceTests {
    let a5 = PageSize(name: "A5", width: .mm(148), height: .mm(210))
    let subpixel = OpenCVArucoDetector(cornerRefinement: .subpixel)

    func sheet(ids: [Int], side: Double) -> MarkerSheet {
        MarkerSheet(ids: ids, side: .mm(side), page: a5, margin: .mm(10), gap: .mm(10))
    }

    /// Every marker OpenCV finds in `images`, sorted by ID, each checked against `side` mm; and the
    /// worst side error in mm.
    func measureMarkers(in images: [GrayImage], dpi: Double, side: Double) throws -> (ids: [Int], worst: Double) {
        var found: [Int] = []
        var worst = 0.0
        for image in images {
            for marker in try subpixel.detect(in: image) {
                found.append(marker.id)
                let error = abs(sideInMillimetres(marker, dpi: dpi) - side)
                worst = max(worst, error)
                #expect(error < 0.1, "ID \(marker.id): side off by \(error) mm")
            }
        }
        return (found.sorted(), worst)
    }

    @Test func pdfSheetAt600DpiDecodesToExactlyTheIDsAtTheExactSize() throws {
        let directory = try TemporaryDirectory()
        let ids = Array(0..<10)
        let pdf = try write(sheet(ids: ids, side: 40).document(), as: "sheet.pdf", in: directory)[0]

        let sizes = try pdfPageSizes(pdf)
        #expect(sizes.count == 3, "10 markers of 40 mm take 3 A5 pages")
        for size in sizes {
            #expect(abs(size.width - 148) < 0.1 && abs(size.height - 210) < 0.1)
        }
        let pages = try rasterizePDF(pdf, dpi: 600, in: directory)
        for page in pages {
            #expect(abs(Double(page.width) / 600 * 25.4 - 148) < 0.1)
            #expect(abs(Double(page.height) / 600 * 25.4 - 210) < 0.1)
        }
        let (found, worst) = try measureMarkers(in: pages, dpi: 600, side: 40)
        #expect(found == ids)
        print("measured: PDF at 600 dpi, \(found.count) markers of 40 mm, worst side error \(String(format: "%.4f", worst)) mm")
    }

    @Test func pngSheetMeasuresTrueAtItsStoredDpi() throws {
        let directory = try TemporaryDirectory()
        let ids = [3, 7, 100, 101]
        let files = try write(sheet(ids: ids, side: 35).document(), as: "sheet.png", in: directory, dpi: 400)
        #expect(files.map(\.lastPathComponent) == ["sheet.png"])
        let png = try Data(contentsOf: files[0])
        let dpi = try #require(try PNGResolution.dpi(of: png))
        #expect(abs(dpi - 400) < 0.01)
        let image = try GrayImage(contentsOf: files[0])
        #expect(abs(Double(image.width) / dpi * 25.4 - 148) < 0.1)
        #expect(abs(Double(image.height) / dpi * 25.4 - 210) < 0.1)
        let markers = try subpixel.detect(in: image)
        #expect(markers.map(\.id).sorted() == ids)
        for marker in markers { #expect(abs(sideInMillimetres(marker, dpi: dpi) - 35) < 0.1) }
        let worst = markers.map { abs(sideInMillimetres($0, dpi: dpi) - 35) }.max() ?? .nan
        print("measured: PNG at its stored \(dpi) dpi, worst side error \(String(format: "%.4f", worst)) mm")
    }

    @Test func svgPagesAreDeclaredInMillimetresWithExactMarkers() throws {
        let directory = try TemporaryDirectory()
        let ids = Array(20..<26)
        let files = try write(sheet(ids: ids, side: 40).document(), as: "sheet.svg", in: directory)
        #expect(files.map(\.lastPathComponent) == ["sheet.svg", "sheet-2.svg"])
        var images: [GrayImage] = []
        for file in files {
            let svg = try String(contentsOf: file, encoding: .utf8)
            #expect(svg.contains(#"width="148mm""#) && svg.contains(#"height="210mm""#))
            #expect(svg.contains(#"viewBox="0 0 148 210""#))
            let raster = directory.file(file.deletingPathExtension().lastPathComponent + "-svg.png")
            try runTool("rsvg-convert", ["--dpi-x", "600", "--dpi-y", "600", "-o", raster.path, file.path])
            let image = try GrayImage(contentsOf: raster)
            #expect(abs(Double(image.width) / 600 * 25.4 - 148) < 0.1)
            images.append(image)
        }
        let (found, worst) = try measureMarkers(in: images, dpi: 600, side: 40)
        #expect(found == ids)
        print("measured: SVG through rsvg-convert at 600 dpi, worst side error \(String(format: "%.4f", worst)) mm")
    }

    @Test func checkerboardIsFoundWithItsSquaresAtTheStatedSize() throws {
        let directory = try TemporaryDirectory()
        let board = try Checkerboard(innerColumns: 9, innerRows: 6, square: .mm(20))
        let placed = try CheckerboardSheet(board: board, page: try PageSize(parsing: "a4"), margin: .mm(10))
        #expect(placed.page.isLandscape, "a 200 mm wide board turns A4 to landscape by itself")
        let pdf = try write(placed.document(), as: "board.pdf", in: directory)[0]
        let specURL = directory.file("board.json")
        var files = OutputFiles()
        files.add(try placed.spec().encoded(), at: specURL)
        try files.commit()

        let dpi = 300.0
        let page = try #require(try rasterizePDF(pdf, dpi: Int(dpi), in: directory).first)
        let corners = try #require(try ChessboardDetector(innerColumns: 9, innerRows: 6).detect(in: page))
        // Adjacent corners along rows and columns are one square apart.
        var steps: [Double] = []
        for row in 0..<6 {
            for column in 0..<9 {
                let i = row * 9 + column
                if column < 8 { steps.append(corners[i].distance(to: corners[i + 1])) }
                if row < 5 { steps.append(corners[i].distance(to: corners[i + 9])) }
            }
        }
        let mean = steps.reduce(0, +) / Double(steps.count) / dpi * 25.4
        #expect(abs(mean - 20) < 0.1, "mean square \(mean) mm")
        print("measured: checkerboard at 300 dpi, mean square \(String(format: "%.4f", mean)) mm for 20 mm")
        // Every corner lies where the spec's origin says (pixel centres at integers: +0.5 px).
        let spec = try BoardSpec.read(from: specURL)
        let xs = corners.map { ($0.x + 0.5) / dpi * 25.4 }, ys = corners.map { ($0.y + 0.5) / dpi * 25.4 }
        let origin = try #require(spec.boardOrigin)
        let expectedX = (1...9).map { origin.x + Double($0) * 20 }
        let expectedY = (1...6).map { origin.y + Double($0) * 20 }
        let foundX = Set(xs.map { x in expectedX.min { abs($0 - x) < abs($1 - x) }! })
        #expect(foundX.count == 9)
        for x in xs { #expect(expectedX.contains { abs($0 - x) < 0.1 }) }
        for y in ys { #expect(expectedY.contains { abs($0 - y) < 0.1 }) }
        // The spec reads back to the same board.
        #expect(try spec.checkerboard() == board)
        #expect(spec.squareSize == BoardSpec.Measure(value: 20, unit: "mm"))
        #expect(spec.page?.name == "A4 landscape" && spec.generator == MarkerKitVersion.generator)
    }

    @Test func singleMarkerSitsOnAPageJustLargeEnough() throws {
        let directory = try TemporaryDirectory()
        let document = try MarkerSheet.singleMarker(id: 213, side: .mm(50), labels: false)
        let pdf = try write(document, as: "m213.pdf", in: directory)[0]
        let size = try #require(try pdfPageSizes(pdf).first)
        #expect(abs(size.width - 50 * 9 / 7) < 0.1 && abs(size.height - 50 * 9 / 7) < 0.1)
        let page = try #require(try rasterizePDF(pdf, dpi: 600, in: directory).first)
        let markers = try subpixel.detect(in: page)
        #expect(markers.map(\.id) == [213])
        #expect(markers.first.map { abs(sideInMillimetres($0, dpi: 600) - 50) < 0.1 } == true)
    }

    @Test func theDictionarySheetHoldsAll1024Markers() throws {
        let directory = try TemporaryDirectory()
        var dictionary = MarkerSheet(ids: Array(0..<1024), side: .mm(15), page: try PageSize(parsing: "a4"),
                                     margin: .mm(10), gap: .mm(4))
        dictionary.markAmbiguous = true
        let pdf = try write(dictionary.document(), as: "all.pdf", in: directory)[0]
        var found: [Int] = []
        for page in try rasterizePDF(pdf, dpi: 300, in: directory) {
            found += try OpenCVArucoDetector().detect(in: page).map(\.id)
        }
        #expect(found.sorted() == Array(0..<1024))
    }
}

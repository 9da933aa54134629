import Foundation
import Testing
@testable import MarkerKit

/// Every sheet `markerkit generate` makes, rasterized, is detected completely by our detector, with a
/// superset of OpenCV's detections, and the corners land where the layout put them.
@Suite struct SheetDetectionTests {
    let detector = MarkerDetector()

    func check(_ images: [GrayImage], expect ids: [Int], _ what: String) throws {
        var found: [Int] = []
        for image in images {
            let ours = try detector.detect(in: image)
            found += ours.map(\.id)
            for marker in try OpenCVArucoDetector().detect(in: image) {
                #expect(ours.contains { $0.id == marker.id && $0.center.distance(to: marker.center) < marker.meanSide / 4 },
                        "\(what): OpenCV finds \(marker.id), we do not")
            }
        }
        #expect(found.sorted() == ids.sorted(), "\(what)")
    }

    @Test func markerSheetsInEveryFormat() throws {
        let directory = try TemporaryDirectory()
        var sheet = MarkerSheet(ids: Array(0..<24), side: .mm(40), page: try PageSize(parsing: "a4"), margin: .mm(10), gap: .mm(10))
        sheet.cutMarks = true
        let document = try sheet.document()
        let pdf = try write(document, as: "sheet.pdf", in: directory)[0]
        try check(try rasterizePDF(pdf, dpi: 150, in: directory), expect: Array(0..<24), "PDF at 150 dpi")
        let pngs = try write(document, as: "sheet.png", in: directory, dpi: 100)
        try check(try pngs.map { try GrayImage(contentsOf: $0) }, expect: Array(0..<24), "PNG at 100 dpi")
        var svgPages: [GrayImage] = []
        for svg in try write(document, as: "sheet.svg", in: directory) {
            let raster = directory.file(svg.deletingPathExtension().lastPathComponent + "-raster.png")
            try runTool("rsvg-convert", ["--dpi-x", "120", "--dpi-y", "120", "-o", raster.path, svg.path])
            svgPages.append(try GrayImage(contentsOf: raster))
        }
        try check(svgPages, expect: Array(0..<24), "SVG at 120 dpi")
    }

    @Test func dictionarySheetAndSingleMarker() throws {
        let directory = try TemporaryDirectory()
        var dictionary = MarkerSheet(ids: Array(0..<1024), side: .mm(15), page: try PageSize(parsing: "a4"), margin: .mm(10), gap: .mm(4))
        dictionary.markAmbiguous = true
        let pdf = try write(dictionary.document(), as: "all.pdf", in: directory)[0]
        try check(try rasterizePDF(pdf, dpi: 200, in: directory), expect: Array(0..<1024), "dictionary at 200 dpi")
        let single = try write(MarkerSheet.singleMarker(id: 213, side: .mm(50), labels: true), as: "m.pdf", in: directory)[0]
        try check(try rasterizePDF(single, dpi: 150, in: directory), expect: [213], "single marker")
    }

    /// Corners against the layout's exact geometry: a noise-free raster shows what the corner stage can do.
    @Test func cornersLandWhereTheLayoutPutThem() throws {
        let directory = try TemporaryDirectory()
        let a5 = try PageSize(parsing: "a5")
        let sheet = MarkerSheet(ids: [5, 6, 7, 8], side: .mm(30), page: a5, margin: .mm(10), gap: .mm(10))
        let layout = try sheet.layout()
        // Cairo's PNG (exact area coverage at edges); poppler snaps axis-aligned edges to the pixel grid
        // by up to a quarter pixel, which is the rasterizer's error, not the detector's.
        let dpi = 300.0
        let png = try write(sheet.document(), as: "s.png", in: directory, dpi: dpi)[0]
        let image = try GrayImage(contentsOf: png)
        let markers = try detector.detect(in: image)
        var errors: [Double] = []
        for placement in layout.pages(for: [5, 6, 7, 8])[0] {
            let marker = try #require(markers.first { $0.id == placement.id })
            let r = placement.marker
            // mm to pixels, pixel centres at integers.
            let truth = [(r.x, r.y), (r.maxX, r.y), (r.maxX, r.maxY), (r.x, r.maxY)].map {
                Point2(x: $0.0 / 25.4 * dpi - 0.5, y: $0.1 / 25.4 * dpi - 0.5)
            }
            errors += zip(marker.corners, truth).map { $0.distance(to: $1) }
        }
        let rmse = (errors.map { $0 * $0 }.reduce(0, +) / Double(errors.count)).squareRoot()
        print("measured: rasterized sheet at 300 dpi (markers 354 px), corner RMSE \(String(format: "%.3f", rmse)) px, worst \(String(format: "%.3f", errors.max()!)) px")
        #expect(rmse < 0.05)
    }
}

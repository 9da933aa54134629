import Foundation
import Testing
@testable import MarkerKit

/// ChArUco diamonds both ways with OpenCV: diamonds OpenCV 4.6 printed (drawCharucoDiamond, and the same
/// turned with perspective) read by MarkerKit with OpenCV's IDs and the true corners; diamonds MarkerKit
/// printed read by OpenCV's detectCharucoDiamond with the IDs asked for and the corners where the page
/// puts them. OpenCV 4.6 gives its corners with pixel centres at +0.5 (OpenCV 5 does not).
@Suite struct DiamondTests {
    static let folder = "diamonds-opencv"

    struct Expected: Decodable {
        struct Image: Decodable {
            let dictionary: String
            let ids: [Int]
            let corners: [[Double]]
            let square_px: Double
            let marker_px: Double
        }
        let images: [String: Image]
    }

    static func dictionary(_ openCVName: String) throws -> MarkerDictionary { try MarkerDictionary.parse(openCVName) }

    @Test func diamondsOpenCVPrintedAreReadWithItsIDsAndTheTrueCorners() throws {
        let expected = try JSONDecoder().decode(Expected.self, from: Data(contentsOf: Fixtures.url("\(Self.folder)/expected.json")))
        #expect(expected.images.count == 3)
        for (file, truth) in expected.images.sorted(by: { $0.key < $1.key }) {
            let image = try GrayImage(contentsOf: Fixtures.url("\(Self.folder)/\(file)"))
            let dictionary = try Self.dictionary(truth.dictionary)
            let markers = try MarkerDetector(dictionary: dictionary).detect(in: image)
            let diamonds = try DiamondDetector(squareToMarker: truth.square_px / truth.marker_px, dictionary: dictionary).diamonds(in: image, markers: markers)
            #expect(diamonds.map(\.ids) == [truth.ids], "\(file)")
            guard let diamond = diamonds.first else { continue }
            let errors = zip(diamond.corners, truth.corners).map { $0.distance(to: Point2(x: $1[0], y: $1[1])) }
            print("measured: \(file): corner errors \(errors.map { String(format: "%.3f", $0) }.joined(separator: " ")) px")
            #expect(errors.allSatisfy { $0 < 0.15 }, "\(file): \(errors)")
            #expect(diamond.markers.map(\.id) == truth.ids)
        }
    }

    /// The diamond MarkerKit prints (PNG at 150 dpi), read by OpenCV 4.6 and by MarkerKit: the IDs asked
    /// for, in OpenCV's order, and the corners where the page's layout puts them.
    @Test(arguments: [(MarkerDictionary.Name.dict6x6_250, [45, 68, 28, 74]), (.arucoOriginal, [7, 7, 300, 12])])
    func diamondsMarkerKitPrintsAreReadByOpenCV(name: MarkerDictionary.Name, ids: [Int]) throws {
        let dictionary = MarkerDictionary.named(name)
        let diamond = try CharucoDiamond(ids: ids, square: .mm(40), marker: .mm(24), dictionary: dictionary)
        let sheet = try DiamondSheet(diamond: diamond, page: PageSize(name: "A4", width: .mm(210), height: .mm(297)), margin: .mm(10))
        let dpi = 150.0, scale = dpi / 25.4
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("diamond-\(UUID().uuidString).png")
        defer { try? FileManager.default.removeItem(at: url) }
        try #require(try sheet.document().render(as: .png, dpi: dpi).first).write(to: url)
        // Where the page puts the inner corners, pixel centres at integers.
        let truth = diamond.corners.map { Point2(x: (sheet.origin.x + $0.x) * scale - 0.5, y: (sheet.origin.y + $0.y) * scale - 0.5) }
        let answer = try Python.run("opencv_diamonds.py", ["image": url.path, "dictionary": name.rawValue, "rate": 40.0 / 24.0])
        let theirIDs = try #require(answer["ids"] as? [[Int]]), theirCorners = try #require(answer["corners"] as? [[[Double]]])
        #expect(theirIDs == [ids])
        for (corner, point) in zip(theirCorners.first ?? [], truth) {
            // (cornerSubPix on a corner between pixels: OpenCV's own error, 0.103 px at most here.)
            #expect(Point2(x: corner[0] - 0.5, y: corner[1] - 0.5).distance(to: point) < 0.15, "OpenCV's \(corner) against \(point)")
        }
        let image = try GrayImage(contentsOf: url)
        let ours = try DiamondDetector(squareToMarker: 40.0 / 24.0, dictionary: dictionary)
            .diamonds(in: image, markers: try MarkerDetector(dictionary: dictionary).detect(in: image))
        #expect(ours.map(\.ids) == [ids])
        for (corner, point) in zip(ours.first?.corners ?? [], truth) { #expect(corner.distance(to: point) < 0.08, "\(corner) against \(point)") }
    }

    /// Three of four markers make no diamond, nor does a diamond with one marker turned by 90 degrees in its
    /// square (OpenCV 4.6 accepts that one, with two corners 50 px off); squares no larger than markers are
    /// refused.
    @Test func incompleteOrMisturnedDiamondsAreNotDiamonds() throws {
        let image = try GrayImage(contentsOf: Fixtures.url("\(Self.folder)/diamond_DICT_6X6_250_ids45-68-28-74_sq200_m120_clean.png"))
        let dictionary = MarkerDictionary.named(.dict6x6_250)
        let detector = try DiamondDetector(squareToMarker: 200.0 / 120.0, dictionary: dictionary)
        let markers = try MarkerDetector(dictionary: dictionary).detect(in: image)
        #expect(markers.count == 4)
        #expect(detector.diamonds(in: image, markers: Array(markers.dropLast())).isEmpty)
        // The right marker (28) turned by 90 degrees: its pixels rotated in place.
        var turned = image
        let (x0, y0, side) = (440, 240, 120)
        for y in 0..<side { for x in 0..<side { turned.pixels[(y0 + y) * 600 + x0 + x] = image.pixels[(y0 + side - 1 - x) * 600 + x0 + y] } }
        let turnedMarkers = try MarkerDetector(dictionary: dictionary).detect(in: turned)
        #expect(turnedMarkers.count == 4)
        #expect(detector.diamonds(in: turned, markers: turnedMarkers).isEmpty)
        for rate in [1.0, 0.5, -2, .nan, .infinity, 1e308] { #expect(throws: MarkerKitError.self) { try DiamondDetector(squareToMarker: rate) } }
        #expect(throws: MarkerKitError.self) { try CharucoDiamond(ids: [1, 2, 3], square: .mm(40), marker: .mm(24)) }
        #expect(throws: MarkerKitError.self) { try CharucoDiamond(ids: [1, 2, 3, 1024], square: .mm(40), marker: .mm(24)) }
        #expect(throws: MarkerKitError.self) { try CharucoDiamond(ids: [1, 2, 3, 4], square: .mm(24), marker: .mm(24)) }
    }
}

import CVBridge
import Foundation

/// A chessboard's inner corners in a photo, found wherever OpenCV's finders find one and fitted with the
/// blurred-corner model (`ChessboardCornerFit`), the whole per-photo job of `calibrate` and `detect --board`.
///
/// Five searches, each only when the one before found nothing:
/// 0. The board's corners themselves (`XCornerGridFinder`: a ChESS response, a grid grown from it, refined by
///    cornerSubPix), in OpenCV's order: about a millisecond a 640x480 photo, where OpenCV's quickest search
///    below takes 2-3 ms, which had made finding the board cost as much as OpenCV's whole pipeline. It
///    answers nil rather than risk a wrong board; then OpenCV's searches run as before. On the project's real
///    sets it finds 97 of the 105 boards (the rest, OpenCV finds).
/// 1. `findChessboardCorners` with one global threshold per dilation (no flags) on the photo itself: the
///    same quad search and grid assembly as the adaptive one, without its dozens of threshold trials. On
///    the project's real sets it finds 100 of the 104 boards OpenCV 4.6's adaptive search finds, plus one
///    that only the sector-based search finds, at 3 ms a 640x480 photo where the adaptive search takes
///    4-8 ms, and 7 ms a 1280x960 one where it takes 70-90 ms (one thread). (No regularity check: a wide
///    lens bends an unrefined grid's rows by up to half a square from straight.)
/// 2. `findChessboardCorners` (adaptive threshold, normalised, FAST_CHECK) on the photo halved by area
///    averaging, where the photo is at least 1000 px wide: a quarter of the pixels, and a board with squares
///    of 10 px or more is found as at full size. FAST_CHECK makes a board too small at half size cost
///    little before step 3.
/// 3. `findChessboardCorners` (adaptive threshold, normalised) on the photo itself, as OpenCV's samples call it.
/// 4. `findChessboardCornersSB` (normalised): boards close to the image's border, which step 3 misses.
///
/// Steps 2-4 are skipped where step 0 saw a board cut by the image's edge (a grid whose every placement of the
/// pattern needs a corner off the image): they cannot find it either, and cost 300-390 ms on a 1280 px photo
/// (three of the four photos in the project's sets that no finder reads).
///
/// The corners found are refined by cornerSubPix at full size and then fitted with the model.
public struct ChessboardFinder: Sendable {
    public enum Search: String, Sendable, Codable {
        case xCornerGrid = "x-corner-grid", globalThreshold = "global-threshold", halfSize = "half-size", fullSize = "full-size", sectorBased = "sector-based"
    }

    public struct Found: Sendable {
        /// The inner corners row by row in OpenCV's order.
        public let corners: [Point2]
        /// The search that found the board.
        public let search: Search
        /// Seconds spent finding the board (every search tried) and fitting its corners.
        public let findSeconds: Double, fitSeconds: Double
    }

    public let innerColumns: Int
    public let innerRows: Int
    /// Photos at least this wide are searched at half size first.
    public var halfSizeFrom = 1000
    /// Whether the board is first looked for from its corners (`XCornerGridFinder`).
    public var usesXCornerGrid = true
    /// Whether the corners are fitted with the model (false: cornerSubPix on all, as OpenCV's samples).
    public var fitsCorners = true

    public init(innerColumns: Int, innerRows: Int) {
        self.innerColumns = innerColumns
        self.innerRows = innerRows
    }

    /// The board's corners, or nil when no search finds it; the time taken either way through `spent`.
    public func find(in image: GrayImage, spent: (_ search: Double, _ fit: Double) -> Void = { _, _ in }) throws -> Found? {
        let clock = ContinuousClock()
        let start = clock.now
        var found: ([Point2], Search)?
        var cut = false
        if usesXCornerGrid {
            switch try XCornerGridFinder(columns: innerColumns, rows: innerRows).search(in: image) {
            case .board(let corners): found = (corners, .xCornerGrid)
            case .none(let cutByTheEdge): cut = cutByTheEdge
            }
        }
        if found == nil, let corners = try ChessboardDetector.quickLook(in: image, columns: innerColumns, rows: innerRows) {
            found = (corners, .globalThreshold)
        }
        // A photo that shows only part of the board: the searches below (a fifth to a quarter of a second on
        // a 1280 px photo, OpenCV 4.6's adaptive and sector-based ones) can find nothing in it either.
        if found == nil, !cut, image.width >= halfSizeFrom, image.width % 2 == 0, image.height % 2 == 0 {
            var half = GrayImage.empty
            try GrayImage.resize(image, width: image.width / 2, height: image.height / 2, bilinear: false, into: &half)
            if let corners = try ChessboardDetector.find(in: half, columns: innerColumns, rows: innerRows,
                                                         bridgeMethod: CVB_CHESSBOARD_OPENCV_FAST_CHECK, halfWindow: 0) {
                // Pixel centres at integers: scale about the pixel edges.
                found = (corners.map { Point2(x: 2 * $0.x + 0.5, y: 2 * $0.y + 0.5) }, .halfSize)
            }
        }
        if found == nil, !cut, let corners = try ChessboardDetector.find(in: image, columns: innerColumns, rows: innerRows,
                                                                         bridgeMethod: CVB_CHESSBOARD_OPENCV_DEFAULT, halfWindow: 0) {
            found = (corners, .fullSize)
        }
        if found == nil, !cut, let corners = try ChessboardDetector.find(in: image, columns: innerColumns, rows: innerRows,
                                                                         bridgeMethod: CVB_CHESSBOARD_SECTOR_BASED_PLAIN, halfWindow: 0) {
            found = (corners, .sectorBased)
        }
        let searched = clock.now
        guard let (coarse, search) = found else {
            spent(Self.seconds(searched - start), 0)
            return nil
        }
        let corners = try fit(coarse, in: image)
        let fitted = clock.now
        spent(Self.seconds(searched - start), Self.seconds(fitted - searched))
        return Found(corners: corners, search: search, findSeconds: Self.seconds(searched - start), fitSeconds: Self.seconds(fitted - searched))
    }

    /// cornerSubPix (window a fifth of the spacing) on the coarse corners, then the model fit from there,
    /// as calibrate fitted before (a corner whose fit fails or moves more than a pixel keeps cornerSubPix's
    /// point). Started from OpenCV's coarse corners instead, the fit moved some corners more than a pixel
    /// and kept worse ones: OpenCV's 13 left samples calibrated to RMS 0.1664 px against 0.1632.
    func fit(_ coarse: [Point2], in image: GrayImage) throws -> [Point2] {
        let half = ChessboardDetector.halfWindow(for: coarse, columns: innerColumns)
        let refined = try ChessboardDetector.refine(coarse, in: image, halfWindow: half)
        guard fitsCorners else { return refined }
        return ChessboardCornerFit().refine(refined, columns: innerColumns, in: image)
    }

    static func seconds(_ d: Duration) -> Double { Double(d.components.seconds) + Double(d.components.attoseconds) * 1e-18 }
}

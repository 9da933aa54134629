import Foundation

/// One ChArUco diamond found in an image: its four marker IDs in OpenCV's order (top, left, right,
/// bottom square), its four inner chessboard corners (top-left, top-right, bottom-right, bottom-left in the
/// diamond's frame, pixel centres at integers) and the markers it was made of, in the order of `ids`.
public struct DiamondDetection: Sendable, Equatable {
    public let ids: [Int]
    public let corners: [Point2]
    public let markers: [MarkerDetection]
}

/// ChArUco diamonds among markers read (OpenCV's detectCharucoDiamond): each marker not yet in a diamond
/// is taken as a diamond's top marker, upright in the diamond's frame; where markers sit in the left, right
/// and bottom squares as its outline predicts (each centre within half a marker's side, each corner within 0.6
/// of a side), the four make a diamond; its corners are found in the image as a ChArUco board's
/// (`CharucoDetector`) and, where that refuses one, placed by the homography of the four markers and refined
/// by cornerSubPix. Every diamond needs all four markers, as OpenCV's. Only the ratio of square to marker
/// matters; IDs are what the markers say (any four, repeated or not).
public struct DiamondDetector: Sendable {
    /// Side of a square over side of a marker (OpenCV's squareMarkerLengthRate), above 1.
    public let squareToMarker: Double
    public let dictionary: MarkerDictionary

    public init(squareToMarker: Double, dictionary: MarkerDictionary = .arucoOriginal) throws {
        guard squareToMarker.isFinite, squareToMarker > 1, squareToMarker <= 100 else {
            throw MarkerKitError.invalidArgument("a diamond's square must be larger than its marker, at most 100 times: not \(squareToMarker) times")
        }
        self.squareToMarker = squareToMarker
        self.dictionary = dictionary
    }

    /// The diamonds among `markers` (read in `image` in this detector's dictionary), in the order of their
    /// top markers.
    public func diamonds(in image: GrayImage, markers: [MarkerDetection]) -> [DiamondDetection] {
        let rate = squareToMarker, offset = (rate - 1) / 2
        var used = [Bool](repeating: false, count: markers.count)
        var found: [DiamondDetection] = []
        // In the top marker's own frame (its side 1, origin at its top-left corner), where the markers of
        // the left, right and bottom squares have their corners.
        func cornersOfSquare(_ column: Double, _ row: Double) -> [Point2] {
            let x = column * rate + offset - (rate + offset), y = row * rate + offset - offset
            return [Point2(x: x, y: y), Point2(x: x + 1, y: y), Point2(x: x + 1, y: y + 1), Point2(x: x, y: y + 1)]
        }
        let unit = [Point2(x: 0, y: 0), Point2(x: 1, y: 0), Point2(x: 1, y: 1), Point2(x: 0, y: 1)]
        for (a, top) in markers.enumerated() where !used[a] {
            guard let h = Homography(from: unit, to: top.corners) else { continue }
            // Loose: the prediction reaches 2.5 sides from the one marker it comes from (OpenCV's search
            // reaches 2.6 sides); a marker turned by 90 degrees has each corner a whole side off.
            let tolerance = top.meanSide / 2
            var members = [a]
            for (column, row) in [(0.0, 1.0), (2.0, 1.0), (1.0, 2.0)] {
                let predicted = cornersOfSquare(column, row).map(h.map)
                let centre = Point2(x: predicted.map(\.x).reduce(0, +) / 4, y: predicted.map(\.y).reduce(0, +) / 4)
                let match = markers.indices.first { b in
                    !used[b] && !members.contains(b) && markers[b].center.distance(to: centre) < tolerance
                        && zip(markers[b].corners, predicted).allSatisfy { $0.distance(to: $1) < 1.2 * tolerance }
                }
                guard let match else { break }
                members.append(match)
            }
            guard members.count == 4 else { continue }
            let group = members.map { markers[$0] }
            guard let corners = corners(of: group, in: image) else { continue }
            for member in members { used[member] = true }
            found.append(DiamondDetection(ids: group.map(\.id), corners: corners, markers: group))
        }
        return found
    }

    /// The inner corners of a diamond made of `group` (top, left, right, bottom).
    func corners(of group: [MarkerDetection], in image: GrayImage) -> [Point2]? {
        // A 3x3 ChArUco board of this ratio, its markers 0-3 the group's: its corners 0, 1, 3, 2 are the
        // diamond's top-left, top-right, bottom-right, bottom-left.
        guard let board = try? CharucoBoard(squaresX: 3, squaresY: 3, square: .mm(squareToMarker), marker: .mm(1), dictionary: dictionary) else { return nil }
        let renumbered = group.enumerated().map { MarkerDetection(id: $0.offset, quad: $0.element.quad, noise: $0.element.noise) }
        let fitted = CharucoDetector(board: board).corners(in: image, markers: renumbered)
        let placed = board.markers.flatMap(\.corners), seen = renumbered.flatMap(\.corners)
        guard let h = Homography(from: placed, to: seen) else { return nil }
        var corners: [Point2] = []
        for (k, id) in [0, 1, 3, 2].enumerated() {
            if let fit = fitted.first(where: { $0.id == id }) {
                corners.append(fit.point)
                continue
            }
            // Placed by the markers and refined by cornerSubPix, a window a third of the paper between a
            // marker and the corner.
            let guess = h.map(board.corners[id])
            let margin = (squareToMarker - 1) / 2 * group[k == 0 || k == 1 ? 0 : 3].meanSide
            guard let refined = try? ChessboardDetector.refine([guess], in: image, halfWindow: max(2, min(11, Int(margin / 3)))).first,
                  refined.distance(to: guess) < max(2, margin / 2) else { return nil }
            corners.append(refined)
        }
        return corners
    }
}

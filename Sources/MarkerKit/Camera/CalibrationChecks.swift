import Foundation

/// Where a calibration's views put the board, as recorded with the calibration so that its verdict can be
/// given again from the file alone: the corners that fell in each part of a 5x5 grid over the image, the
/// largest tilt of the board towards or away from the camera, and the nearest and farthest the board's
/// middle was (in the calibration's units).
public struct ViewCoverage: Codable, Sendable, Equatable {
    /// The grid: parts of the image across and down, each a fifth of its width and height.
    public static let columns = 5, rows = 5
    /// Corners per part, row by row from the top left.
    public var cells: [Int]
    public var largestTilt: Double
    public var nearest: Double
    public var farthest: Double

    public init(cells: [Int], largestTilt: Double, nearest: Double, farthest: Double) throws {
        guard cells.count == Self.columns * Self.rows, cells.allSatisfy({ $0 >= 0 }) else {
            throw MarkerKitError.badInput("the view coverage is \(Self.columns)x\(Self.rows) counts of corners, none negative, not \(cells.count)")
        }
        guard [largestTilt, nearest, farthest].allSatisfy(\.isFinite), largestTilt >= 0, largestTilt <= 90, nearest >= 0, farthest >= nearest else {
            throw MarkerKitError.badInput("the view coverage's tilt must be 0-90° and its distances finite, the farthest not nearer than the nearest")
        }
        self.cells = cells
        self.largestTilt = largestTilt
        self.nearest = nearest
        self.farthest = farthest
    }

    enum CodingKeys: String, CodingKey { case cells, largestTilt, nearest, farthest }

    /// Checked as the memberwise init checks (a file's coverage may be anything).
    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        try self.init(cells: try c.decode([Int].self, forKey: .cells), largestTilt: try c.decode(Double.self, forKey: .largestTilt),
                      nearest: try c.decode(Double.self, forKey: .nearest), farthest: try c.decode(Double.self, forKey: .farthest))
    }

    static func cell(column: Int, row: Int) -> Int { min(row, rows - 1) * columns + min(column, columns - 1) }

    /// Parts of the grid that some corner fell in.
    public var reached: Int { cells.filter { $0 > 0 }.count }

    /// The share of the grid reached, 0-1.
    public var fraction: Double { Double(reached) / Double(cells.count) }

    /// The edges (their middle three parts all empty) and corners (the corner part empty) of the image that
    /// no view's corners reached: "left edge", "top-right corner" ...
    public var missing: [String] {
        let last = Self.columns - 1, bottom = Self.rows - 1
        func empty(_ column: Int, _ row: Int) -> Bool { cells[Self.cell(column: column, row: row)] == 0 }
        var names: [String] = []
        if (1..<bottom).allSatisfy({ empty(0, $0) }) { names.append("left edge") }
        if (1..<bottom).allSatisfy({ empty(last, $0) }) { names.append("right edge") }
        if (1..<last).allSatisfy({ empty($0, 0) }) { names.append("top edge") }
        if (1..<last).allSatisfy({ empty($0, bottom) }) { names.append("bottom edge") }
        for (column, row, name) in [(0, 0, "top-left"), (last, 0, "top-right"), (0, bottom, "bottom-left"), (last, bottom, "bottom-right")] where empty(column, row) {
            names.append("\(name) corner")
        }
        return names
    }
}

/// Is the lens model rich enough, and did the lens hold still? The views are split into two halves, each
/// half calibrated on its own, and the two calibrations compared as mrcal's cross-validation does: their
/// projection difference against the difference their own uncertainty allows, sqrt(sigma_a^2 + sigma_b^2),
/// where the views put data (where that allowance is within three times its least value over the image).
/// Noise alone gives ratios of about one; a model that cannot follow the lens bends each half differently
/// and gives several times more.
///
/// The halves are every other view, so both cover the image alike, unless the views were taken at more
/// than one focus (a capture with the lock off): then the views at the lower focus values form one half
/// and the rest the other, so that a lens that moved with the focus shows as two different lenses. A
/// random split would hand each half the same mixture and hide it.
public struct CrossValidation: Codable, Sendable, Equatable {
    enum CodingKeys: String, CodingKey { case model, halves, focusRanges, medianDifference, medianAllowed, ratio, points, diagonal }

    public let model: String
    public let halves: [Int]
    /// Each half's lowest and highest focus when the views were split by focus; nil for every other view.
    public let focusRanges: [[Int64]]?
    /// Median projection difference and median allowance over the compared area (px), their ratio, and
    /// how many grid points the area holds.
    public let medianDifference: Double
    public let medianAllowed: Double
    public let ratio: Double
    public let points: Int
    /// The image's diagonal (px), which the difference is judged against.
    public let diagonal: Double
    /// Above this ratio the model is called too lean.
    public static let limit = 3.0
    /// Above this median difference (a share of the image's diagonal: 0.1%, 1.47 px at 1280x720) the halves
    /// disagree too much for the calibration to be used, whatever the ratio: a ratio near one then says only
    /// that each half is as loose as the other (docs/MEASUREMENTS.md).
    public static let differenceLimit = 0.001

    public var modelTooLean: Bool { ratio > Self.limit }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        try self.init(model: try c.decode(String.self, forKey: .model), halves: try c.decode([Int].self, forKey: .halves),
                      focusRanges: try c.decodeIfPresent([[Int64]].self, forKey: .focusRanges),
                      medianDifference: try c.decode(Double.self, forKey: .medianDifference), medianAllowed: try c.decode(Double.self, forKey: .medianAllowed),
                      ratio: try c.decode(Double.self, forKey: .ratio), points: try c.decode(Int.self, forKey: .points),
                      diagonal: try c.decode(Double.self, forKey: .diagonal))
    }

    /// The halves disagree by more than `differenceLimit` of the diagonal.
    public var halvesDisagree: Bool { medianDifference > Self.differenceLimit * diagonal }

    /// Checks the figures (a file's may be anything): two halves, two focus ranges of two values each,
    /// finite differences not negative.
    public init(model: String, halves: [Int], focusRanges: [[Int64]]?, medianDifference: Double, medianAllowed: Double, ratio: Double,
                points: Int, diagonal: Double) throws {
        guard halves.count == 2, halves.allSatisfy({ $0 > 0 }), focusRanges.map({ $0.count == 2 && $0.allSatisfy { $0.count == 2 } }) ?? true,
              [medianDifference, medianAllowed, ratio, diagonal].allSatisfy({ $0.isFinite && $0 >= 0 }), points >= 0 else {
            throw MarkerKitError.badInput("a cross-validation has two halves of views, focus ranges of two values each, and finite differences not negative")
        }
        (self.model, self.halves, self.focusRanges, self.medianDifference) = (model, halves, focusRanges, medianDifference)
        (self.medianAllowed, self.ratio, self.points, self.diagonal) = (medianAllowed, ratio, points, diagonal)
    }

    /// A richer model to try, when there is one here.
    public var richerModel: String? {
        switch CameraCalibration.Model(rawValue: model) {
        case .opencv4: return "opencv5"
        case .opencv5: return "opencv8 (or fisheye for a wide-angle lens)"
        case .pinhole: return "opencv5"
        default: return nil
        }
    }

    public var verdict: String {
        let split = focusRanges.map { r in
            " at focus \(r[0].map(String.init).joined(separator: "-")) and \(r[1].map(String.init).joined(separator: "-"))"
        } ?? ""
        let figures = String(format: "the two halves (%d and %d views%@) differ by %.3f px (median) where their own uncertainty allows %.3f px: ratio %.2f",
                             halves[0], halves[1], split, medianDifference, medianAllowed, ratio)
        let loose = String(format: "; but %.2f px is more than the %.2f px (%.1f%% of the image diagonal) a usable calibration allows: each half alone is loose, so the views are too few or too alike to pin the lens; not good (take more views, spread over the image and tilted)",
                           medianDifference, Self.differenceLimit * diagonal, 100 * Self.differenceLimit)
        if focusRanges != nil {
            guard modelTooLean else {
                return "cross-validation: \(figures)" + (halvesDisagree ? loose : "; the lens did not move measurably with the focus and the \(model) model follows it")
            }
            return "cross-validation: \(figures), more than \(Int(Self.limit)) times what noise explains: the lens moved with the focus, so this calibration holds at no one focus (capture again with the focus held)"
        }
        guard modelTooLean else { return "cross-validation: \(figures)" + (halvesDisagree ? loose : "; the \(model) model follows this lens") }
        let advice = richerModel.map { ": calibrate with the lens model \($0)" }
            ?? " (no richer model here; with few views a rich model also wanders where they do not pin it: take more views"
            + (model == "fisheye" ? ")" : ", or try the fisheye model for a wide-angle lens)")
        return "cross-validation: \(figures), more than \(Int(Self.limit)) times what noise explains: the \(model) model does not follow this lens" + advice
    }
}

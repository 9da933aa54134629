import Foundation

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
public struct CrossValidation: Codable, Sendable {
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
    /// Above this ratio the model is called too lean.
    public static let limit = 3.0

    public var modelTooLean: Bool { ratio > Self.limit }

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
        if focusRanges != nil {
            guard modelTooLean else { return "cross-validation: \(figures); the lens did not move measurably with the focus and the \(model) model follows it" }
            return "cross-validation: \(figures), more than \(Int(Self.limit)) times what noise explains: the lens moved with the focus, so this calibration holds at no one focus (capture again with the focus held: without --no-lock)"
        }
        guard modelTooLean else { return "cross-validation: \(figures); the \(model) model follows this lens" }
        let advice = richerModel.map { ": calibrate with --model \($0)" }
            ?? " (no richer model here; with few views a rich model also wanders where they do not pin it: take more views"
            + (model == "fisheye" ? ")" : ", or try --model fisheye for a wide-angle lens)")
        return "cross-validation: \(figures), more than \(Int(Self.limit)) times what noise explains: the \(model) model does not follow this lens" + advice
    }

    /// Splits `result`'s used views and calibrates each half with `calibrator`; needs 6 views or more.
    /// `focus` gives the camera's focus per image file name (a capture log's); views at several focus values
    /// are split by focus.
    public static func run(_ calibrator: Calibrator, result: Calibrator.Result, focus: [String: Int64] = [:]) throws -> CrossValidation {
        let used = result.used
        guard used.count >= 6 else {
            throw MarkerKitError.badInput("cross-validation needs at least 6 views (3 a half); \(used.count) were used")
        }
        let (parts, focusRanges) = split(used, focus: focus)
        let c = result.calibration
        // A half has half the views: its focal length may be loose where the whole's was not; the
        // comparison with the uncertainty is what judges it.
        var calibrator = calibrator
        calibrator.maxFocalUncertainty = .infinity
        var halves: [CameraCalibration] = []
        for (part, views) in parts.enumerated() {
            halves.append(try calibrator.calibrate(views: views, width: c.imageWidth, height: c.imageHeight, name: "\(c.name)-half\(part + 1)").calibration)
        }
        let difference = try ProjectionDifference(halves[0], halves[1]).compute(columns: 40, range: nil)
        let pixels = difference.points.map { Point2(x: $0.x, y: $0.y) }
        let sa = try ProjectionUncertainty(halves[0]).sigmas(at: pixels, range: nil)
        let sb = try ProjectionUncertainty(halves[1]).sigmas(at: pixels, range: nil)
        let allowed = zip(sa, sb).map { ($0.sigma * $0.sigma + $1.sigma * $1.sigma).squareRoot() }
        func median(_ v: [Double]) -> Double { v.sorted()[v.count / 2] }
        let ratios = zip(difference.points, allowed).map { $0.difference / max($1, 1e-12) }
        return CrossValidation(model: c.model.rawValue, halves: parts.map(\.count), focusRanges: focusRanges,
                               medianDifference: median(difference.points.map(\.difference)), medianAllowed: median(allowed),
                               ratio: median(ratios), points: ratios.count)
    }

    /// The two halves: by focus (lower values first, ties in view order) when every view has a focus and
    /// there are several, else every other view. Halves of equal size, even if one focus value falls in
    /// both: a split at a focus boundary that favours a larger difference of mean focus leaves a half of
    /// 3-4 views whose calibration is loose, and flagged fewer of the hunting camera's captures (7 of 10
    /// against 9 of 10, docs/MEASUREMENTS.md).
    static func split(_ views: [Calibrator.View], focus: [String: Int64]) -> ([[Calibrator.View]], [[Int64]]?) {
        let values = views.map { focus[URL(fileURLWithPath: $0.file).lastPathComponent] }
        let known = values.compactMap { $0 }
        guard known.count == views.count, Set(known).count > 1 else {
            return ((0..<2).map { part in views.enumerated().filter { $0.offset % 2 == part }.map(\.element) }, nil)
        }
        let order = views.indices.sorted { (known[$0], $0) < (known[$1], $1) }
        let low = Array(order.prefix((views.count + 1) / 2)), high = Array(order.dropFirst((views.count + 1) / 2))
        let range = { (part: [Int]) in [part.map { known[$0] }.min()!, part.map { known[$0] }.max()!] }
        return ([low.map { views[$0] }, high.map { views[$0] }], [range(low), range(high)])
    }
}

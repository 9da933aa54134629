import Foundation

/// Running the cross-validation (the figures it gives and their verdict: Camera/CalibrationChecks.swift).
extension CrossValidation {
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
        return try CrossValidation(model: c.model.rawValue, halves: parts.map(\.count), focusRanges: focusRanges,
                               medianDifference: median(difference.points.map(\.difference)), medianAllowed: median(allowed),
                               ratio: median(ratios), points: ratios.count,
                               diagonal: (Double(c.imageWidth * c.imageWidth + c.imageHeight * c.imageHeight)).squareRoot())
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

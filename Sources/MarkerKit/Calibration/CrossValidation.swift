import Foundation

/// Is the lens model rich enough? The views are split into two halves (every other view, so both cover
/// the image alike), each half calibrated on its own, and the two calibrations compared as mrcal's
/// cross-validation does: their projection difference against the difference their own uncertainty
/// allows, sqrt(sigma_a^2 + sigma_b^2), where the views put data (where that allowance is within three
/// times its least value over the image). Noise alone gives ratios of about one; a model that cannot
/// follow the lens bends each half differently and gives several times more.
public struct CrossValidation: Codable, Sendable {
    public let model: String
    public let halves: [Int]
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
        let figures = String(format: "the two halves (%d and %d views) differ by %.3f px (median) where their own uncertainty allows %.3f px: ratio %.2f",
                             halves[0], halves[1], medianDifference, medianAllowed, ratio)
        guard modelTooLean else { return "cross-validation: \(figures); the \(model) model follows this lens" }
        let advice = richerModel.map { ": calibrate with --model \($0)" }
            ?? " (no richer model here; with few views a rich model also wanders where they do not pin it: take more views"
            + (model == "fisheye" ? ")" : ", or try --model fisheye for a wide-angle lens)")
        return "cross-validation: \(figures), more than \(Int(Self.limit)) times what noise explains: the \(model) model does not follow this lens" + advice
    }

    /// Splits `result`'s used views and calibrates each half with `calibrator`; needs 6 views or more.
    public static func run(_ calibrator: Calibrator, result: Calibrator.Result) throws -> CrossValidation {
        let used = result.used
        guard used.count >= 6 else {
            throw MarkerKitError.badInput("cross-validation needs at least 6 views (3 a half); \(used.count) were used")
        }
        let c = result.calibration
        // A half has half the views: its focal length may be loose where the whole's was not; the
        // comparison with the uncertainty is what judges it.
        var calibrator = calibrator
        calibrator.maxFocalUncertainty = .infinity
        var halves: [CameraCalibration] = []
        for part in 0..<2 {
            let views = used.enumerated().filter { $0.offset % 2 == part }.map(\.element)
            halves.append(try calibrator.calibrate(views: views, width: c.imageWidth, height: c.imageHeight, name: "\(c.name)-half\(part + 1)").calibration)
        }
        let difference = try ProjectionDifference(halves[0], halves[1]).compute(columns: 40, range: nil)
        let pixels = difference.points.map { Point2(x: $0.x, y: $0.y) }
        let sa = try ProjectionUncertainty(halves[0]).sigmas(at: pixels, range: nil)
        let sb = try ProjectionUncertainty(halves[1]).sigmas(at: pixels, range: nil)
        let allowed = zip(sa, sb).map { ($0.sigma * $0.sigma + $1.sigma * $1.sigma).squareRoot() }
        func median(_ v: [Double]) -> Double { v.sorted()[v.count / 2] }
        let ratios = zip(difference.points, allowed).map { $0.difference / max($1, 1e-12) }
        return CrossValidation(model: c.model.rawValue, halves: [(used.count + 1) / 2, used.count / 2],
                               medianDifference: median(difference.points.map(\.difference)), medianAllowed: median(allowed),
                               ratio: median(ratios), points: ratios.count)
    }
}

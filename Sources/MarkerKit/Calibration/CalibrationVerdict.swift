import Foundation

extension ViewCoverage {
    /// The coverage of `views` (their corners and poses; `boardPoints` by corner ID) in a width x height image.
    public init(views: [Calibrator.View], boardPoints: [(Double, Double, Double)], width: Int, height: Int) throws {
        var cells = [Int](repeating: 0, count: Self.columns * Self.rows)
        for view in views {
            for p in view.corners where p.x >= 0 && p.y >= 0 && p.x < Double(width) && p.y < Double(height) {
                cells[Self.cell(column: Int(p.x / Double(width) * Double(Self.columns)), row: Int(p.y / Double(height) * Double(Self.rows)))] += 1
            }
        }
        let n = Double(max(boardPoints.count, 1))
        let middle = (boardPoints.map(\.0).reduce(0, +) / n, boardPoints.map(\.1).reduce(0, +) / n)
        var tilt = 0.0, distances: [Double] = []
        for view in views where view.rvec.count == 3 && view.tvec.count == 3 {
            let pose = Pose3D(rvec: view.rvec, tvec: view.tvec)
            let r = pose.rotation
            tilt = max(tilt, acos(min(1, abs(r[8]))) * 180 / .pi)
            let centre = pose.offset(by: (middle.0, middle.1, 0)).tvec
            distances.append((centre[0] * centre[0] + centre[1] * centre[1] + centre[2] * centre[2]).squareRoot())
        }
        try self.init(cells: cells, largestTilt: tilt, nearest: distances.min() ?? 0, farthest: distances.max() ?? 0)
    }
}

/// A verdict a newcomer can act on: "good", "usable in the centre" or "not usable", the reason in one line,
/// and what to do. Judged from the projection uncertainty (at infinity, over a 16x9 grid spanning the image),
/// the parts of the image the views' corners reached, the corners' RMS error and, when it was run, the
/// cross-validation. Every pixel threshold is a share of the image's diagonal, so that the same calibration
/// seen at another resolution is judged alike; docs/MEASUREMENTS.md gives the measurements they come from.
public struct CalibrationVerdict: Sendable, Equatable {
    public enum Grade: String, Sendable {
        case good
        case centre = "usable in the centre"
        case notUsable = "not usable"
    }

    /// Good needs the median uncertainty over the whole image at most this share of the diagonal (0.025%:
    /// 0.37 px at 1280x720) ...
    public static let goodMedian = 0.00025
    /// ... and its worst (mostly in an image corner, where views rarely reach) at most this share (0.5%:
    /// 7.3 px at 1280x720).
    public static let goodWorst = 0.005
    /// The middle of the image (its middle half across and down) must be known to this share of the diagonal
    /// (0.1%: 1.5 px at 1280x720), or the calibration is not usable anywhere.
    public static let centreUncertainty = 0.001
    /// Good needs corners in at least this share of the 5x5 parts of the image (15 of 25).
    public static let goodCoverage = 0.6
    /// Above this RMS (share of the diagonal: 0.1%, 1.5 px at 1280x720) the corners are not where the model
    /// puts them: blurred views, or a lens the model cannot follow.
    public static let rmsLimit = 0.001
    /// Advice to tilt more below this largest tilt (degrees), and to vary the distance when the farthest view
    /// is less than this many times as far as the nearest.
    public static let tiltAdvice = 30.0
    public static let distanceAdvice = 1.3

    public let grade: Grade
    /// Why, in one line.
    public let reason: String
    /// What to do, one line each (empty when there is nothing to do).
    public let advice: [String]

    /// The inputs: image diagonal (px), median uncertainty over the whole image and over its middle, the
    /// worst and where (px), the coverage (nil when not recorded), the RMS (px), the views.
    public let diagonal: Double
    public let median: Double
    public let centre: Double
    public let worst: ProjectionUncertainty.Point
    public let coverage: ViewCoverage?
    public let rms: Double?
    public let views: Int
    public let crossValidation: CrossValidation?

    /// The verdict of `calibration` (its recorded coverage and cross-validation, or `crossValidation`); nil
    /// for a calibration that carries no projection covariance (imported).
    public init?(_ calibration: CameraCalibration, crossValidation: CrossValidation? = nil) {
        let c = calibration
        guard let uncertainty = try? ProjectionUncertainty(c), c.imageWidth > 1, c.imageHeight > 1,
              let map = try? UncertaintyMap.summary(uncertainty) else { return nil }
        let points = map.points
        let w = Double(c.imageWidth), h = Double(c.imageHeight)
        diagonal = (w * w + h * h).squareRoot()
        func middleValue(_ v: [Double]) -> Double { v.sorted()[v.count / 2] }
        median = map.median
        let middle = points.filter { abs($0.x - (w - 1) / 2) <= w / 4 && abs($0.y - (h - 1) / 2) <= h / 4 }
        centre = middleValue((middle.isEmpty ? points : middle).map(\.sigma))
        worst = map.worst
        coverage = c.provenance?.coverage
        rms = c.provenance?.rms
        views = c.provenance?.views ?? uncertainty.covariance.views
        self.crossValidation = crossValidation ?? c.provenance?.crossValidation
        (grade, reason) = Self.judge(diagonal: diagonal, median: median, centre: centre, worst: worst, width: w, height: h,
                                     coverage: coverage, rms: rms, crossValidation: self.crossValidation)
        advice = grade == .good ? [] : Self.advise(coverage: coverage, views: views, units: c.provenance?.units ?? "mm", crossValidation: self.crossValidation,
                                                   rmsHigh: (rms ?? 0) > Self.rmsLimit * diagonal, model: c.model, diagonal: diagonal)
    }

    static func percent(_ value: Double, of diagonal: Double) -> String { String(format: "%.3f%% of the diagonal", 100 * value / diagonal) }

    static func judge(diagonal d: Double, median: Double, centre: Double, worst: ProjectionUncertainty.Point, width: Double, height: Double,
                      coverage: ViewCoverage?, rms: Double?, crossValidation cv: CrossValidation?) -> (Grade, String) {
        if centre > centreUncertainty * d {
            return (.notUsable, String(format: "even the middle of the image is uncertain by %.2f px (median; %@, limit %.2f px)",
                                       centre, percent(centre, of: d), centreUncertainty * d))
        }
        if let cv, cv.halvesDisagree {
            return (.notUsable, String(format: "two calibrations from halves of the views disagree by %.2f px (median; %@, limit %.2f px)",
                                       cv.medianDifference, percent(cv.medianDifference, of: d), CrossValidation.differenceLimit * d))
        }
        if let cv, cv.modelTooLean {
            return cv.focusRanges != nil
                ? (.notUsable, String(format: "the lens moved with the focus while the views were taken (cross-validation ratio %.2f, limit %.0f)", cv.ratio, CrossValidation.limit))
                : (.centre, String(format: "the %@ model does not follow this lens towards the edges (cross-validation ratio %.2f, limit %.0f)", cv.model, cv.ratio, CrossValidation.limit))
        }
        if let rms, rms > rmsLimit * d {
            return (.centre, String(format: "the corners lie %.2f px (RMS) from where the model puts them (%@, limit %.2f px)", rms, percent(rms, of: d), rmsLimit * d))
        }
        if median > goodMedian * d {
            return (.centre, String(format: "good in the middle (%.2f px) but uncertain by %.2f px over the image (median; %@, limit %.2f px), %.1f px at the %@",
                                    centre, median, percent(median, of: d), goodMedian * d, worst.sigma, place(worst, width: width, height: height)))
        }
        if worst.sigma > goodWorst * d {
            return (.centre, String(format: "good in the middle (%.2f px) but uncertain by %.1f px at the %@ (worst; %@, limit %.1f px)",
                                    centre, worst.sigma, place(worst, width: width, height: height), percent(worst.sigma, of: d), goodWorst * d))
        }
        if let coverage, coverage.fraction < goodCoverage {
            return (.centre, "the corners reached \(coverage.reached) of the image's \(coverage.cells.count) parts (5x5; good needs \(Int((goodCoverage * 25).rounded())))")
        }
        let parts = coverage.map { ", corners in \($0.reached) of \($0.cells.count) parts of the image" } ?? ""
        return (.good, String(format: "uncertain by %.2f px over the image (median; %@), %.2f px in the middle%@", median, percent(median, of: d), centre, parts))
    }

    static func advise(coverage: ViewCoverage?, views: Int, units: String, crossValidation cv: CrossValidation?, rmsHigh: Bool,
                       model: CameraCalibration.Model, diagonal: Double) -> [String] {
        var advice: [String] = []
        if let coverage {
            let missing = coverage.missing
            if !missing.isEmpty {
                advice.append("take views that put the board at \(Self.places(missing)): no view's corners reached \(missing.count == 1 ? "it" : "them")")
            } else if coverage.fraction < goodCoverage {
                advice.append("take views that reach the parts of the image no corner fell in (\(coverage.cells.count - coverage.reached) of \(coverage.cells.count))")
            }
            if coverage.largestTilt < tiltAdvice {
                advice.append(String(format: "tilt the board more: the largest tilt was %.0f°; take views tilted 30-45° in different directions", coverage.largestTilt))
            }
            if coverage.farthest < distanceAdvice * coverage.nearest {
                advice.append("vary the distance: the board was \(Length.format(coverage.nearest.rounded())) to \(Length.format(coverage.farthest.rounded())) \(units) away; take some views nearer and some farther")
            }
        }
        if views < 15 { advice.append("take more views: \(views) were used, 15-30 spread over the image are usual") }
        if let cv, cv.modelTooLean, cv.focusRanges != nil {
            advice.append("capture again with the focus held still (autofocus off)")
        } else if let cv, cv.modelTooLean {
            advice.append(cv.richerModel.map { "calibrate with a richer lens model: \($0)" } ?? "take more views (no richer lens model is available)")
        } else if let cv, cv.halvesDisagree {
            advice.append("take more views, spread over the image and tilted: each half of these views alone gives a different lens")
        } else if rmsHigh {
            advice.append("check the views are sharp; if they are, try a richer lens model than \(model.rawValue) (opencv8, or fisheye for a wide-angle lens)")
        }
        return advice
    }

    /// "the left and bottom edges and the top-right corner", "the four corners".
    static func places(_ missing: [String]) -> String {
        let edges = missing.filter { $0.hasSuffix(" edge") }.map { String($0.dropLast(5)) }
        let corners = missing.filter { $0.hasSuffix(" corner") }.map { String($0.dropLast(7)) }
        var parts: [String] = []
        if !edges.isEmpty { parts.append("the \(list(edges)) edge\(edges.count == 1 ? "" : "s")") }
        if corners.count == 4 { parts.append("the four corners") } else if !corners.isEmpty {
            parts.append("the \(list(corners)) corner\(corners.count == 1 ? "" : "s")")
        }
        return list(parts)
    }

    /// "left edge", "left edge and top-right corner", "a, b and c".
    static func list(_ items: [String]) -> String {
        items.count <= 1 ? items.joined() : items.dropLast().joined(separator: ", ") + " and " + items.last!
    }

    /// "top left", "bottom", "middle": where in the image a point is, by thirds.
    static func place(_ p: ProjectionUncertainty.Point, width: Double, height: Double) -> String {
        let column = ["left", "", "right"][max(0, min(2, Int(3 * p.x / width)))]
        let row = ["top", "", "bottom"][max(0, min(2, Int(3 * p.y / height)))]
        let words = [row, column].filter { !$0.isEmpty }
        return words.isEmpty ? "middle" : words.joined(separator: " ")
    }

    /// The verdict and advice as summary lines.
    public var lines: [String] {
        ["verdict: \(grade.rawValue): \(reason)"] + advice.map { "  to do: \($0)" }
    }
}

import Foundation

/// Chessboard corners found again by the model ChArUco corners are fitted with (`XCornerFit`: two blurred
/// edges through the point, each allowed to bend as a lens bends it), starting from cornerSubPix's
/// corners, each over a window of its own four squares (along the board's local axes, short of the next
/// corners). cornerSubPix's window assumes straight edges; a wide lens bends them most where the corners
/// weigh most on a rig's translation.
struct ChessboardCornerFit {
    /// Half the window at most, pixels (as the ChArUco corner search).
    var maxHalfWindow = 16.0
    /// Whether the fit models a lopsided blur (`XCornerFit.modelsSkew`), on corners whose blur (the coarse
    /// fit's) is at least `skewFromBlur` px.
    var modelsSkew = true
    /// A lopsided blur comes from resampling (two taps at a fractional phase f: variance f(1 - f) on top
    /// of a pixel's own 1/12), so a corner blurred less than this has none worth a model. On sharp corners
    /// the skew's two extra parameters drifted with the point instead: the fine fit took 15 passes against
    /// 7 without them, and calibrations of the real sharp sets came out worse (BoofCV's fisheye RMS 0.2154
    /// against 0.1926 px; Udacity's lane-lines 0.8670 against 0.8652).
    var skewFromBlur = 0.45

    /// The corners (row by row, `columns` to a row) fitted again; a corner whose fit fails or moves more
    /// than `maxShift` pixels keeps its place. (Chessboard corners are weighed alike in a solve, so no
    /// sigma is asked of the fit.)
    func refine(_ corners: [Point2], columns: Int, in image: GrayImage, maxShift: Double = 1) -> [Point2] {
        zip(fitted(corners, columns: columns, in: image, maxShift: maxShift), corners).map { $0 ?? $1 }
    }

    /// The corners fitted, nil where the fit fails or moves more than `maxShift` pixels.
    func fitted(_ corners: [Point2], columns: Int, in image: GrayImage, maxShift: Double = 1) -> [Point2?] {
        let rows = corners.count / columns
        guard columns >= 2, rows >= 2, corners.count == columns * rows else { return corners.map { _ in nil } }
        var fit = XCornerFit()
        return corners.indices.map { i in
            let c = i % columns, r = i / columns
            // The local board axes: one square along the row and along the column, from the neighbours.
            func axis(_ before: Int?, _ after: Int?) -> Point2 {
                switch (before.map { corners[$0] }, after.map { corners[$0] }) {
                case let (b?, a?): return Point2(x: (a.x - b.x) / 2, y: (a.y - b.y) / 2)
                case let (nil, a?): return Point2(x: a.x - corners[i].x, y: a.y - corners[i].y)
                case let (b?, nil): return Point2(x: corners[i].x - b.x, y: corners[i].y - b.y)
                default: return Point2(x: 0, y: 0)
                }
            }
            let du = axis(c > 0 ? i - 1 : nil, c + 1 < columns ? i + 1 : nil)
            let dv = axis(r > 0 ? i - columns : nil, r + 1 < rows ? i + columns : nil)
            let start = corners[i]
            fit.modelsSkew = false
            guard fill(&fit, image: image, centre: start, du: du, dv: dv),
                  let coarse = fit.fit(from: start, edges: (du, dv), blur: 0.7, coarse: true) else { return nil }
            fit.modelsSkew = modelsSkew && coarse.blur >= skewFromBlur
            // Again about the point found, from the coarse fit (XCornerFit.fit(from:coarse:)); where that
            // window cannot be had, on the first one's pixels.
            guard coarse.point.distance(to: start) <= maxShift, fill(&fit, image: image, centre: coarse.point, du: du, dv: dv)
                    || fill(&fit, image: image, centre: start, du: du, dv: dv),
                  let found = fit.fit(again: coarse), found.point.distance(to: start) <= maxShift else { return nil }
            return found.point
        }
    }

    /// The pixels within the corner's four squares along the axes `du`, `dv` (one square each), short of
    /// the next corners by 1.5 pixels and at most `maxHalfWindow` pixels; false when too few or off the image.
    private func fill(_ fit: inout XCornerFit, image: GrayImage, centre: Point2, du: Point2, dv: Point2) -> Bool {
        // (On false the pixels held are left as they were; no caller fits them.)
        let det = du.x * dv.y - du.y * dv.x
        guard abs(det) > 1e-9 else { return false }
        let side = min(du.distance(to: Point2(x: 0, y: 0)), dv.distance(to: Point2(x: 0, y: 0)))
        let reach = min(0.5 - 1.5 / side, maxHalfWindow / side)
        guard reach * side >= 2.5 else { return false }
        let span = Int((reach * max(abs(du.x) + abs(dv.x), abs(du.y) + abs(dv.y))).rounded(.up)) + 1
        let cx = Int(centre.x.rounded()), cy = Int(centre.y.rounded())
        guard cx - span >= 0, cy - span >= 0, cx + span < image.width, cy + span < image.height else { return false }
        let inverse = (dv.y / det, -dv.x / det, -du.y / det, du.x / det)
        let square = 2 * span + 1
        image.pixels.withUnsafeBufferPointer { pixels in
            fit.fill(capacity: square * square) { xs, ys, values in
                var count = 0
                for y in (cy - span)...(cy + span) {
                    let dy = Double(y) - centre.y
                    // u and v along the row, linear in x.
                    guard let range = XCornerFit.rowRange(inverse.1 * dy - inverse.0 * centre.x, inverse.0, inverse.3 * dy - inverse.2 * centre.x,
                                                          inverse.2, 1, 0, reach: reach, within: cx - span, cx + span) else { continue }
                    let row = y * image.width
                    for x in range {
                        let dx = Double(x) - centre.x
                        let u = inverse.0 * dx + inverse.1 * dy, v = inverse.2 * dx + inverse.3 * dy
                        guard abs(u) < reach, abs(v) < reach else { continue }
                        xs[count] = Double(x)
                        ys[count] = Double(y)
                        values[count] = Double(pixels[row + x])
                        count += 1
                    }
                }
                return count
            }
        }
        return fit.xs.count >= 36
    }
}

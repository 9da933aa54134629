/// Stage 8b: checks of a decoded read against the picture, for the ways a valid code came out of
/// something that was not that marker (found by the cross-talk test and the phone renders):
/// - a blurred light square inside a black border reads as a code whose black data cells all touch the
///   border (DICT_ARUCO_ORIGINAL's 1023 and the 15 others with a white 3x3 middle): such a read counts only
///   when those cells are dark like the border's ink (`ringCellsAreInk`);
/// - gray tiles of a printed poster (a light one between two darker) read as such a code too, their "border"
///   paper-light in places: a quarter of the border as light as the white cells refuses a read
///   (`borderIsInk`);
/// - the dark band an adaptive threshold leaves around a light card on a dark background outlines the card
///   as a candidate whose "border" is the background, and a darker patch of background around a marker
///   and its margin reads as a 4x4 code twice the marker's size: a read counts only when the border is
///   darker than what lies just outside it (`borderStandsOut`), as a printed marker's black border is
///   against its paper;
/// - a 4x4 or 6x6 marker sampled as 7x7 cells leaves cells unknown where its cells straddle the grid's: a
///   read with more than the usual 2 doubtful cells must not read clearly better as such a grid
///   (`readsBetterAsOtherGrid`);
/// - a read of a 4x4, 6x6 or 7x7 code must not read more surely as a marker of another size
///   (`readsBetterAsOtherSize`), and a read the code helped must not read perfectly as one
///   (`readsPerfectlyAsOtherSize`): short codes are easily spelt by other markers sampled on the wrong grid;
/// (A read inside a larger candidate that a reader of another list reads is a piece of that marker's code:
/// `MarkerDetector.readCandidates` drops it.)
enum ReadCheck {
    /// The least darkness (0: the white cells' level, 1: the border's) a black data cell of a ring code
    /// must have. Measured: ring-code markers read correctly in 300 default renders (8-400 px, tilt up to
    /// 75 degrees, noise up to 8, blur) 0.68 at least (1% below 0.80); the two false reads 0.54 (phone
    /// render 408 of seed 7: ID 895, 30 px, blurred, read as 1023) and 0.64 (a 9 px DICT_5X5_1000 marker).
    static let minRingDarkness = 0.66
    /// The least (outside - border) / (white - border) for a read. Measured on 158 markers read in
    /// real photos and phone renders (print 0.4 cells beside some): 0.81 at least, median 1.01; the card
    /// read as DICT_5X5_1000's 981 in the cross-talk test: -0.08. In a blurred tight grid (27 px markers a
    /// quarter cell apart, blur 1.2 px: touching render 33 of seed 7 at 1920x1080) the gap comes to 0.2-0.4,
    /// so 0.4 left 25 of its 48 markers (OpenCV 18), 0.2 leaves 44; at 0.2 no false or wrong read in 1000 default, 100
    /// phone, 200 touching, 400 cluttered, 300 AprilTag and 300 4x4 renders or the shared real photos.
    static let minBorderStep = 0.2
    /// The least step of each side alone (what lies outside that side against the border's level): a
    /// sliver of light between two markers of a turned tight grid reads as DICT_ARUCO_ORIGINAL's 1023, the
    /// crossings at its ends light, its long sides the neighbours' borders (-0.51 to -0.57; touching render
    /// 168 of seed 7 at 640x480). Markers read (the step of their worst side): 1000 default renders 0.49 at
    /// least, 100 phone 0.35, 200 cluttered -0.02, 300 AprilTag 0.64, the shared real photos 0.22, ArUco's
    /// marker-chessboard video 0.10, 200 touching renders -0.07 (blurred tight grids, where a side's gap is
    /// as dark as the border).
    static let minSideStep = -0.25
    /// How far from the white cells' level towards the black cells' a border cell must be to count as ink
    /// in `borderIsInk`.
    static let inkDarkness = 0.25

    /// Whether a code (as seen in the grid) has every black data cell on the ring next to the border.
    static func isRingCode(_ bits: MarkerBits) -> Bool {
        var middleWhite = true
        let n = bits.side
        for y in 1...n - 2 { for x in 1...n - 2 where (bits.raw >> UInt64(y * n + x)) & 1 == 0 { middleWhite = false } }
        return middleWhite && bits.raw != MarkerBits.mask(side: n)
    }

    /// The mean gray of the middle of each cell of an unwarped square (`side` cells a side, border
    /// included; 7 for a 5x5 code).
    static func cellMeans(_ square: GrayImage, pixelsPerCell: Int) -> InlineArray<81, Double> {
        var means = InlineArray<81, Double>(repeating: 0)
        let margin = pixelsPerCell / 4, inner = pixelsPerCell - 2 * margin
        let side = square.width / pixelsPerCell
        square.pixels.withUnsafeBufferPointer { pixels in
            for index in 0..<side * side {
                let cx = index % side, cy = index / side
                var sum = 0
                for y in (cy * pixelsPerCell + margin)..<(cy * pixelsPerCell + margin + inner) {
                    for x in (cx * pixelsPerCell + margin)..<(cx * pixelsPerCell + margin + inner) { sum += Int(pixels[y * square.width + x]) }
                }
                means[index] = Double(sum) / Double(inner * inner)
            }
        }
        return means
    }

    /// The border's mean and the white data cells' mean of `code` (as seen in the grid).
    static func levels(_ means: InlineArray<81, Double>, code: MarkerBits) -> (border: Double, white: Double) {
        var border = 0.0, white = 0.0, whites = 0
        let n = code.side, side = n + 2
        for index in 0..<side * side {
            let x = index % side, y = index / side
            if x == 0 || y == 0 || x == side - 1 || y == side - 1 {
                border += means[index]
            } else if (code.raw >> UInt64((y - 1) * n + (x - 1))) & 1 == 1 {
                white += means[index]
                whites += 1
            }
        }
        return (border / Double(4 * (side - 1)), white / Double(max(whites, 1)))
    }

    /// For a ring code: every black data cell at least `minRingDarkness` of the way from the white cells'
    /// level to the border's. Other codes pass.
    static func ringCellsAreInk(means: InlineArray<81, Double>, code: MarkerBits) -> Bool {
        guard isRingCode(code) else { return true }
        let (border, white) = levels(means, code: code)
        guard white > border else { return false }
        let n = code.side
        for y in 1...n {
            for x in 1...n where (code.raw >> UInt64((y - 1) * n + (x - 1))) & 1 == 0 {
                if (white - means[y * (n + 2) + x]) / (white - border) < minRingDarkness { return false }
            }
        }
        return true
    }

    /// Fewer than a quarter of the border's cells as light as paper: less than `inkDarkness` of the way from
    /// the white data cells' level to the black data cells'. A printed border is ink all round, where blur
    /// lightens a cell only part of the way; three stacked gray tiles of a poster read as DICT_ARUCO_ORIGINAL's
    /// 1023 with 6 of 24 border cells at the tiles' white (cluttered render 23 of seed 5). Measured on every
    /// read of 1000 default, 100 phone, 200 touching, 200 cluttered and 600 AprilTag and 4x4 renders, the
    /// shared real photos and ArUco's marker-chessboard video (11,000 reads): 3 such cells at most in the
    /// renders, 1 in the photos, 5 in two frames of the video. Codes without black data cells pass.
    static func borderIsInk(means: InlineArray<81, Double>, code: MarkerBits) -> Bool {
        let n = code.side, side = n + 2
        let (_, white) = levels(means, code: code)
        var black = 0.0, blacks = 0
        for y in 1...n {
            for x in 1...n where (code.raw >> UInt64((y - 1) * n + (x - 1))) & 1 == 0 {
                black += means[y * side + x]
                blacks += 1
            }
        }
        guard blacks > 0 else { return true }
        black /= Double(blacks)
        guard white > black else { return false }
        var light = 0
        for index in 0..<side * side {
            let x = index % side, y = index / side
            guard x == 0 || y == 0 || x == side - 1 || y == side - 1 else { continue }
            if (white - means[index]) / (white - black) < inkDarkness { light += 1 }
        }
        return light < side - 1 // a quarter of the 4 (side - 1) border cells
    }

    /// The paper just outside the border (the lightest of 0.5, 0.25 and 0.125 cell out, along each side) at
    /// least `minBorderStep` of the way from the border's level to the white cells', and along each side
    /// alone at least `minSideStep`. Cells outside the image are left out; with fewer than 8 of the 28 (for a 5x5 code) inside, the
    /// check passes (nothing to look at).
    static func borderStandsOut(quad: Quad, in image: GrayImage, means: InlineArray<81, Double>, code: MarkerBits) -> Bool {
        let (border, white) = levels(means, code: code)
        guard white > border else { return false }
        guard let map = SquareToQuad(quad) else { return true }
        let g = code.side + 2
        func step(_ sum: Double, _ count: Int) -> Double { (sum / Double(count) - border) / (white - border) }
        func standsOut(_ ring: Ring) -> Bool {
            guard step(ring.sum, ring.count) >= minBorderStep else { return false }
            var least = Double.infinity
            for side in 0..<4 where ring.sideCounts[side] >= 2 { least = min(least, step(ring.sideSums[side], ring.sideCounts[side])) }
            return least >= minSideStep
        }
        // Half a cell out alone first: where that ring stands out all round (a marker with a quiet zone),
        // the lightest of three can only stand out more, and the other two rings are not sampled.
        let halfCellOut = ringOutside(map: map, in: image, cells: g, steps: 1)
        if halfCellOut.count == 4 * g, standsOut(halfCellOut) { return true }
        let ring = ringOutside(map: map, in: image, cells: g, steps: 3)
        guard ring.count >= 8 else { return true }
        return standsOut(ring)
    }

    /// The lightest of the rings' samples round a marker, summed over its cells and over each side's.
    private struct Ring {
        var sum = 0.0, count = 0
        var sideSums = InlineArray<4, Double>(repeating: 0), sideCounts = InlineArray<4, Int>(repeating: 0)
    }

    /// The ring of cells round a marker's border: the sum over its cells of the lightest of the first
    /// `steps` of 0.5, 0.25 and 0.125 cell out, and the cells counted (those in the image), in all and by side.
    private static func ringOutside(map: SquareToQuad, in image: GrayImage, cells g: Int, steps: Int) -> Ring {
        var ring = Ring()
        let cells = Double(g)
        image.pixels.withUnsafeBufferPointer { pixels in
            // The ring of cells around the border, 0.5 cell outside it: u, v in cells from the top-left
            // corner, and the outward direction. Taken there and 0.25 and 0.125 cell out, the lightest: half
            // a cell out is the paper round a marker with a quiet zone, the others the narrow gap between
            // the markers of a tight grid, whose neighbour's border lies half a cell out.
            for k in 0..<4 * g {
                let along = Double(k % g) + 0.5
                let (u, v, ou, ov): (Double, Double, Double, Double)
                switch k / g {
                case 0: (u, v, ou, ov) = (along, -0.5, 0, -1)
                case 1: (u, v, ou, ov) = (cells + 0.5, along, 1, 0)
                case 2: (u, v, ou, ov) = (cells - along, cells + 0.5, 0, 1)
                default: (u, v, ou, ov) = (-0.5, cells - along, -1, 0)
                }
                var lightest = -1.0
                for step in 0..<steps {
                    let back = 0.5 - 0.5 / Double(1 << step)
                    var cellSum = 0.0, cellCount = 0
                    for side in 0..<2 {
                        let along = side == 0 ? -0.2 : 0.2
                        let pu = u - back * ou + along * abs(ov), pv = v - back * ov + along * abs(ou)
                        guard let value = bilinear(pixels, width: image.width, height: image.height, map.point(u: pu / cells, v: pv / cells)) else { continue }
                        cellSum += value
                        cellCount += 1
                    }
                    if cellCount == 2 { lightest = max(lightest, cellSum / 2) }
                }
                if lightest >= 0 {
                    ring.sum += lightest
                    ring.count += 1
                    ring.sideSums[k / g] += lightest
                    ring.sideCounts[k / g] += 1
                }
            }
        }
        return ring
    }

    /// Cells of an n x n grid laid over the unwarped square that read less surely than `minConfidence`
    /// (the share of light pixels in the middle half of each cell against `threshold`), and how many of its
    /// border cells read light.
    static func unsureCells(_ square: GrayImage, cells n: Int, threshold: Int, minConfidence: Double) -> (unsure: Int, lightBorder: Int) {
        var unsure = 0, lightBorder = 0
        forEachCell(square, cells: n, threshold: threshold) { border, fraction in
            if border {
                if fraction > 0.5 { lightBorder += 1 }
            } else if abs(fraction - 0.5) * 2 < minConfidence {
                unsure += 1
            }
        }
        return (unsure, lightBorder)
    }

    /// Each cell of an n x n grid laid over the square: whether it is a border cell, and its share of light
    /// pixels (in the middle half of the cell) against `threshold`.
    static func forEachCell(_ square: GrayImage, cells n: Int, threshold: Int, _ body: (_ border: Bool, _ fraction: Double) -> Void) {
        let cell = Double(square.width) / Double(n)
        square.pixels.withUnsafeBufferPointer { pixels in
            for cy in 0..<n {
                for cx in 0..<n {
                    let x0 = Int((Double(cx) + 0.25) * cell + 0.5), x1 = Int((Double(cx) + 0.75) * cell + 0.5)
                    let y0 = Int((Double(cy) + 0.25) * cell + 0.5), y1 = Int((Double(cy) + 0.75) * cell + 0.5)
                    var light = 0
                    for y in y0..<y1 { for x in x0..<x1 where Int(pixels[y * square.width + x]) > threshold { light += 1 } }
                    body(cx == 0 || cy == 0 || cx == n - 1 || cy == n - 1, Double(light) / Double(max((x1 - x0) * (y1 - y0), 1)))
                }
            }
        }
    }

    /// Whether a read with `doubtful` data cells (unsure, or corrected by the code) reads clearly more
    /// surely as a 4x4 or 6x6 marker (a 6 or 8 cell grid with a dark border and at least 3 unsure cells
    /// fewer): the cells of a 6x6 marker straddle the 7-cell grid, and a few of them left unknown or
    /// corrected let the rest match a 5x5 code (a 23 px 6x6 marker read as DICT_5X5_50's 30 in the
    /// cross-talk test; as an 8-cell grid it has no unsure cell). Asked only of reads with more than the
    /// usual 2 doubtful cells: a 5x5 marker's cells straddle an 8-cell grid's by an eighth of a cell, so a
    /// sharp one reads surely either way.
    /// (For codes of other sizes: the grids one cell smaller and larger, `side` being the read's grid.)
    static func readsBetterAsOtherGrid(square: GrayImage, side: Int = 7, threshold: Int, doubtful: Int, minConfidence: Double) -> Bool {
        for n in [side - 1, side + 1] where (6...9).contains(n) {
            let other = unsureCells(square, cells: n, threshold: threshold, minConfidence: minConfidence)
            if other.lightBorder <= 1 && other.unsure + 3 <= doubtful { return true }
        }
        return false
    }

    /// How surely an n x n grid laid over the square reads: the mean over its data cells of how far each
    /// cell's share of light pixels (middle half) is from a half (1: every cell all light or all dark), and
    /// how many of its border cells read light.
    static func certainty(_ square: GrayImage, cells n: Int, threshold: Int) -> (mean: Double, lightBorder: Int) {
        var sum = 0.0, lightBorder = 0
        forEachCell(square, cells: n, threshold: threshold) { border, fraction in
            if border {
                if fraction > 0.5 { lightBorder += 1 }
            } else {
                sum += abs(fraction - 0.5) * 2
            }
        }
        return (sum / Double((n - 2) * (n - 2)), lightBorder)
    }

    /// The least margin by which another marker size's grid must read more surely for a read of a 4x4, 6x6
    /// or 7x7 code to be refused.
    static let otherSizeMargin = 0.05

    /// Whether the square reads more surely as a marker of another size (a grid of 6 to 9 cells with a dark
    /// border, its data cells' mean certainty `otherSizeMargin` above the read's own grid): a 4x4 code is one
    /// of 4000 in 65536 grids, and a 5x5, 6x6 or 7x7 marker sampled on 6 cells can spell one (the mixed
    /// renders of every dictionary: DICT_4X4_1000 read 8 such in 30 renders). Asked of 4x4, 6x6 and 7x7
    /// reads only: asked of 5x5 reads too it refused DICT_ARUCO_ORIGINAL 801 in frame 90 of ArUco's video,
    /// which OpenCV reads (while it refused DICT_5X5_1000's reads of DICT_7X7_1000 markers).
    static func readsBetterAsOtherSize(square: GrayImage, side: Int, threshold: Int) -> Bool {
        let own = certainty(square, cells: side, threshold: threshold).mean
        for n in 6...9 where n != side {
            let other = certainty(square, cells: n, threshold: threshold)
            if other.lightBorder == 0 && other.mean >= own + otherSizeMargin { return true }
        }
        return false
    }

    /// The least certainty (`certainty`) at which a grid reads perfectly.
    static let perfectCertainty = 0.99

    /// Whether the square reads perfectly as a marker of another size (a grid of 6 to 9 cells, every data
    /// cell's middle all light or all dark, no light border cell): asked of reads the code helped (a cell
    /// unsure or corrected). In the 10,000 mixed renders DICT_5X5_1000 read DICT_7X7_1000 markers (819 as
    /// 649, 300 as 337; own grid 0.63-0.70, the 9-cell grid 1.000), DICT_ARUCO_ORIGINAL a DICT_4X4_100
    /// marker and DICT_4X4_1000 a DICT_ARUCO_ORIGINAL one (own 0.953, the 7-cell grid 1.000) that way;
    /// the helped reads of real markers (real photos, ArUco's video, 109) read at most 0.969 on another grid.
    static func readsPerfectlyAsOtherSize(square: GrayImage, side: Int, threshold: Int) -> Bool {
        for n in 6...9 where n != side {
            let other = certainty(square, cells: n, threshold: threshold)
            if other.lightBorder == 0 && other.mean >= perfectCertainty { return true }
        }
        return false
    }

    /// Whether a quadrilateral's edge is darker just inside than just outside, as a marker's black border
    /// against its paper is: at 8 points along each side, 1/18 of the side in (inside the border of every
    /// marker size, whose border is at least 1/9 of the side) against 1/18 out; at least 24 of the 32 pairs
    /// darker inside, by 10 gray levels on average. A light card on a darker ground (the paper around most
    /// markers, a larger candidate than the marker) is lighter inside. Points outside the image count as
    /// not darker.
    static func hasDarkBorder(_ quad: Quad, in image: GrayImage) -> Bool {
        guard let step = edgeStep(quad, in: image) else { return false }
        return step.darkerInside >= 24 && step.meanStep >= 10
    }

    /// The mirror of `hasDarkBorder`: at least 24 of the 32 pairs lighter inside, by 10 gray levels on
    /// average. Such a candidate is a light card on a darker ground (the dark band the adaptive threshold
    /// leaves around a marker's paper outlines the paper), never a marker: its border ring would start on
    /// light paper. Asked before a candidate is read, since its "border" is often the dark ground and reads
    /// clean, so that it was unwarped, refined and unwarped again for nothing (45 of 152 candidates in the
    /// bench's 640x480 frame with 50 markers).
    static func isLightCard(_ quad: Quad, in image: GrayImage) -> Bool {
        guard let step = edgeStep(quad, in: image) else { return false }
        return step.lighterInside >= 24 && step.meanStep <= -10
    }

    /// Of 32 pairs of points 1/18 of the side inside and outside a quadrilateral's edges (8 along each
    /// side), how many are darker inside, how many lighter, and the mean of outside - inside over all 32
    /// (a pair with a point outside the image counts as neither, and as 0).
    static func edgeStep(_ quad: Quad, in image: GrayImage) -> (darkerInside: Int, lighterInside: Int, meanStep: Double)? {
        guard let map = SquareToQuad(quad) else { return nil }
        let depth = 1.0 / 18
        let width = image.width, height = image.height, maxX = Double(width - 1), maxY = Double(height - 1)
        var darker = 0, lighter = 0, sum = 0.0
        image.pixels.withUnsafeBufferPointer { pixels in
            // `bilinear` at the map's point (u, v), -1 outside the image; written out, as this runs for
            // every candidate.
            @inline(__always) func sample(_ u: Double, _ v: Double) -> Double {
                let p = map.point(u: u, v: v)
                guard p.x >= 0, p.y >= 0, p.x <= maxX, p.y <= maxY else { return -1 }
                let x0 = min(Int(p.x), width - 2), y0 = min(Int(p.y), height - 2)
                let fx = p.x - Double(x0), fy = p.y - Double(y0)
                let i = y0 * width + x0
                let a = Double(pixels[i]), b = Double(pixels[i + 1]), c = Double(pixels[i + width]), d = Double(pixels[i + width + 1])
                return (a * (1 - fx) + b * fx) * (1 - fy) + (c * (1 - fx) + d * fx) * fy
            }
            for side in 0..<4 {
                for k in 0..<8 {
                    let along = (Double(k) + 0.5) / 8
                    let inside: Double, outside: Double
                    switch side {
                    case 0: (inside, outside) = (sample(along, depth), sample(along, -depth))
                    case 1: (inside, outside) = (sample(1 - depth, along), sample(1 + depth, along))
                    case 2: (inside, outside) = (sample(along, 1 - depth), sample(along, 1 + depth))
                    default: (inside, outside) = (sample(depth, along), sample(-depth, along))
                    }
                    guard inside >= 0, outside >= 0 else { continue }
                    if outside > inside { darker += 1 } else if outside < inside { lighter += 1 }
                    sum += outside - inside
                }
            }
        }
        return (darker, lighter, sum / 32)
    }

    static func bilinear(_ pixels: UnsafeBufferPointer<UInt8>, width: Int, height: Int, _ p: Point2) -> Double? {
        guard p.x >= 0, p.y >= 0, p.x <= Double(width - 1), p.y <= Double(height - 1) else { return nil }
        let x0 = min(Int(p.x), width - 2), y0 = min(Int(p.y), height - 2)
        let fx = p.x - Double(x0), fy = p.y - Double(y0)
        let a = Double(pixels[y0 * width + x0]), b = Double(pixels[y0 * width + x0 + 1])
        let c = Double(pixels[(y0 + 1) * width + x0]), d = Double(pixels[(y0 + 1) * width + x0 + 1])
        return (a * (1 - fx) + b * fx) * (1 - fy) + (c * (1 - fx) + d * fx) * fy
    }

    /// The projective map of the unit square onto a quadrilateral: (0,0), (1,0), (1,1), (0,1) to corners
    /// 0-3 (Heckbert's closed form).
    struct SquareToQuad {
        let a, b, c, d, e, f, g, h: Double

        init?(_ q: Quad) {
            let (x0, y0, x1, y1, x2, y2, x3, y3) = (q[0].x, q[0].y, q[1].x, q[1].y, q[2].x, q[2].y, q[3].x, q[3].y)
            let sx = x0 - x1 + x2 - x3, sy = y0 - y1 + y2 - y3
            let dx1 = x1 - x2, dx2 = x3 - x2, dy1 = y1 - y2, dy2 = y3 - y2
            let den = dx1 * dy2 - dx2 * dy1
            guard den != 0 else { return nil }
            g = (sx * dy2 - dx2 * sy) / den
            h = (dx1 * sy - sx * dy1) / den
            a = x1 - x0 + g * x1; b = x3 - x0 + h * x3; c = x0
            d = y1 - y0 + g * y1; e = y3 - y0 + h * y3; f = y0
        }

        func point(u: Double, v: Double) -> Point2 {
            let w = g * u + h * v + 1
            return Point2(x: (a * u + b * v + c) / w, y: (d * u + e * v + f) / w)
        }
    }
}


/// Stages 5 to 9 on one candidate, as the detector's read waves run them (`MarkerDetector.readCandidates`):
/// light cards refused, the square unwarped, split (Otsu) and sampled, the code decoded, the corners
/// refined and, where refinement moved them far enough to matter, the square read again; each read checked
/// (8b) before it counts.
extension MarkerDetector {
    typealias Reading = CellSampler.Grid

    /// Stages 5 to 9 on one candidate: the marker it reads as, or nil.
    func read(candidate quad: Quad, in image: GrayImage, reader: DetectorWorkspace.Reader) throws -> MarkerDetection? {
        let p = parameters
        guard !measure("light cards", &reader.timings, { ReadCheck.isLightCard(quad, in: image) }) else { return nil }
        guard let first = try read(quad, in: image, reader: reader),
              Double(first.borderErrors) <= p.maxBorderErrorRate * Double(first.borderCells) else { return nil }
        guard p.refineCorners else { return checked(decode(first, quad: quad, reader: reader), grid: first, quad: quad, in: image, reader: reader) }
        // A black border: refine the corners and read the code again from them. The refined read is
        // the one reported; when both reads are sure they must agree, since a code read from a grid
        // that is a cell fraction off can be another valid ID.
        let (refined, noise) = measure("corner refinement", &reader.timings) { CornerRefiner.refineMeasured(quad, in: image, scratch: &reader.refiner) }
        guard refined != quad else {
            // No edge could be fitted (an edge hidden or at the image border): the polygon's corners.
            return checked(decode(first, quad: quad, reader: reader), grid: first, quad: quad, in: image, reader: reader)
        }
        let early = decode(first, quad: quad, reader: reader)
        if let early, Self.cornersMoved(from: quad, to: refined) <= 0.25 * refined.perimeter / 4 / Double(dictionary.markerSize + 2) {
            // Corners that moved under a quarter of a cell keep every cell's sampled middle inside its cell:
            // the first read stands, checked on its own square, and the square is not unwarped and read again
            // (in the real photo sets every such read checked as the second read does). One the checks
            // turn down still gets the second read.
            let marker = Self.moved(early, from: quad, to: refined)
            if let kept = checked(marker, grid: first, quad: quad, in: image, reader: reader) {
                return measured(kept, refined: refined, noise: noise, in: image, reader: reader)
            }
        }
        guard let second = try read(refined, in: image, reader: reader) else { return nil }
        guard Double(second.borderErrors) <= p.maxBorderErrorRate * Double(second.borderCells) else {
            // Refined, a small blurred marker's border can read one cell lighter than the limit (touching
            // render 120 at 1280x720: a 20 px marker, blur 1.3 px, 6 border cells light, then 7): the first
            // read, sure on its own, stands when the refined square passes its checks.
            guard let early else { return nil }
            return checked(Self.moved(early, from: quad, to: refined), grid: first, quad: refined, in: image, reader: reader)
                .map { measured($0, refined: refined, noise: noise, in: image, reader: reader) }
        }
        if let marker = decode(second, quad: refined, reader: reader) {
            if let early, early.id != marker.id { return nil }
            return checked(marker, grid: second, quad: refined, in: image, reader: reader).map { measured($0, refined: refined, noise: noise, in: image, reader: reader) }
        } else if let early {
            // Only the first read is sure: keep its code, report the refined corners in its order (the
            // refined square, last unwarped, is in the same order as the first).
            let marker = Self.moved(early, from: quad, to: refined)
            return checked(marker, grid: first, quad: refined, in: image, reader: reader).map { measured($0, refined: refined, noise: noise, in: image, reader: reader) }
        }
        return nil
    }

    /// `marker` (read from `quad`'s square) with `refined`'s corners, in the marker's own order.
    static func moved(_ marker: MarkerDetection, from quad: Quad, to refined: Quad) -> MarkerDetection {
        let turn = (0..<4).first { marker.quad[0] == quad[$0] } ?? 0
        return MarkerDetection(id: marker.id, quad: Quad(refined[turn], refined[(turn + 1) % 4], refined[(turn + 2) % 4], refined[(turn + 3) % 4]))
    }

    /// How far the farthest corner moved.
    static func cornersMoved(from a: Quad, to b: Quad) -> Double {
        var moved = 0.0
        for i in 0..<4 { moved = max(moved, a[i].distance(to: b[i])) }
        return moved
    }

    /// `marker` as reported: where its border is thin, its corners from profiles that stop inside the
    /// border (`CornerRefiner.insideBorder`; the code was read before this, so which markers are found does
    /// not change), and the refiner's corner noise, its edges renumbered as the marker's corners are from the refined square's.
    private func measured(_ marker: MarkerDetection, refined: Quad, noise: CornerNoise?, in image: GrayImage,
                          reader: DetectorWorkspace.Reader) -> MarkerDetection {
        guard let turn = (0..<4).first(where: { marker.quad[0] == refined[$0] }) else { return marker }
        let cells = dictionary.markerSize + 2
        var quad = marker.quad, noise = noise
        if let settled = measure("corner refinement", &reader.timings, { CornerRefiner.insideBorder(refined, cells: cells, in: image, scratch: &reader.refiner) }) {
            quad = Quad(settled.quad[turn], settled.quad[(turn + 1) % 4], settled.quad[(turn + 2) % 4], settled.quad[(turn + 3) % 4])
            noise = settled.noise
        }
        return MarkerDetection(id: marker.id, quad: quad, noise: noise.map { $0.rotated(by: turn).withBorderFloor(quad, cells: cells) })
    }

    /// Stage 8b (`ReadCheck`) on a decoded read: `grid` is the read that decided the code, `quad` the
    /// corners of the square last unwarped into the reader (in the grid's order).
    private func checked(_ marker: MarkerDetection?, grid: Reading, quad: Quad, in image: GrayImage,
                         reader: DetectorWorkspace.Reader) -> MarkerDetection? {
        measure("read checks", &reader.timings) { check(marker, grid: grid, quad: quad, in: image, reader: reader) }
    }

    private func check(_ marker: MarkerDetection?, grid: Reading, quad: Quad, in image: GrayImage,
                       reader: DetectorWorkspace.Reader) -> MarkerDetection? {
        guard let marker, let decoded = dictionary.decode(grid.data) else { return marker }
        let p = parameters
        let code = dictionary.bits(for: decoded.id).rotatedClockwise(decoded.rotation)
        let means = ReadCheck.cellMeans(reader.square, pixelsPerCell: p.pixelsPerCell)
        guard ReadCheck.ringCellsAreInk(means: means, code: code), ReadCheck.borderIsInk(means: means, code: code) else { return nil }
        if code.side != 5 {
            let threshold = Otsu.split(reader.square, border: p.pixelsPerCell).threshold
            if ReadCheck.readsBetterAsOtherSize(square: reader.square, side: grid.side, threshold: threshold) { return nil }
        }
        guard ReadCheck.borderStandsOut(quad: quad, in: image, means: means, code: code) else { return nil }
        let helped = grid.data != code || grid.confidence < p.minCellConfidence
        guard helped else { return marker }
        let threshold = Otsu.split(reader.square, border: p.pixelsPerCell).threshold
        if ReadCheck.readsPerfectlyAsOtherSize(square: reader.square, side: grid.side, threshold: threshold) { return nil }
        // Doubtful cells: unsure ones and sure ones the code corrected.
        var doubtful = 0
        let n = code.side
        for y in 1...n {
            for x in 1...n {
                let fraction = grid.fractions[y * grid.side + x]
                let unsure = abs(fraction - 0.5) * 2 < p.minCellConfidence
                let corrected = (fraction > 0.5) != ((code.raw >> UInt64((y - 1) * n + (x - 1))) & 1 == 1)
                if unsure || corrected { doubtful += 1 }
            }
        }
        if doubtful > p.maxUnsureCells {
            if ReadCheck.readsBetterAsOtherGrid(square: reader.square, side: grid.side, threshold: threshold, doubtful: doubtful, minConfidence: p.minCellConfidence) { return nil }
        }
        return marker
    }

    /// Stages 5 to 7 on one quadrilateral: nil when its middle is flat.
    private func read(_ quad: Quad, in image: GrayImage, reader: DetectorWorkspace.Reader) throws -> Reading? {
        let p = parameters
        try measure("unwarp", &reader.timings) { try Unwarp.square(quad, from: image, pixelsPerCell: p.pixelsPerCell, cells: dictionary.markerSize + 2, into: &reader.square) }
        let split = measure("otsu", &reader.timings) { Otsu.split(reader.square, border: p.pixelsPerCell) }
        guard split.contrast >= p.minContrast else { return nil }
        return measure("cell sampling", &reader.timings) {
            CellSampler.grid(of: reader.square, threshold: split.threshold, pixelsPerCell: p.pixelsPerCell, marginRate: p.cellMarginRate)
        }
    }

    /// Stage 8: the code, when every data cell is read surely enough.
    private func decode(_ reading: Reading, quad: Quad, reader: DetectorWorkspace.Reader) -> MarkerDetection? {
        measure("decoding", &reader.timings) { CodeReader.read(grid: reading, quad: quad, dictionary: dictionary, parameters: parameters) }
    }
}

import CVBridge

/// The classic square-marker detector as a list of stages, each in its own file: grayscale, adaptive
/// threshold, contours, convex 4-gon candidates, unwarp, Otsu, cell sampling, code reading, corner
/// refinement. Pose is separate (`MarkerPoseEstimator`), as it needs a calibration and a marker size.
public struct MarkerDetector: Sendable {
    public var parameters: DetectorParameters
    public var dictionary: MarkerDictionary

    public init(parameters: DetectorParameters = DetectorParameters(), dictionary: MarkerDictionary = .arucoOriginal) {
        self.parameters = parameters
        self.dictionary = dictionary
    }

    public func detect(in frame: Frame) throws -> [MarkerDetection] {
        var timings: StageTimings? = nil
        return try detect(in: frame, timings: &timings)
    }

    public func detect(in image: GrayImage) throws -> [MarkerDetection] {
        var timings: StageTimings? = nil
        return try detect(in: image, timings: &timings)
    }

    /// Detects markers in any frame; adds each stage's time to `timings` when it is not nil.
    public func detect(in frame: Frame, timings: inout StageTimings?) throws -> [MarkerDetection] {
        try detect(in: frame, workspace: DetectorWorkspace(), timings: &timings)
    }

    public func detect(in image: GrayImage, timings: inout StageTimings?) throws -> [MarkerDetection] {
        try detect(in: image, workspace: DetectorWorkspace(), timings: &timings)
    }

    /// The same with the buffers of `workspace`, for a stream of frames.
    public func detect(in frame: Frame, workspace: DetectorWorkspace, timings: inout StageTimings?) throws -> [MarkerDetection] {
        var markers: [MarkerDetection] = []
        try detect(in: frame, workspace: workspace, timings: &timings, into: &markers)
        return markers
    }

    public func detect(in image: GrayImage, workspace: DetectorWorkspace, timings: inout StageTimings?) throws -> [MarkerDetection] {
        var markers: [MarkerDetection] = []
        try detect(in: image, workspace: workspace, timings: &timings, into: &markers)
        return markers
    }

    /// The markers, sorted by ID, into `markers` (emptied first, its memory kept): with a workspace and an
    /// array kept from frame to frame, a stream of frames of one size allocates nothing after its first.
    public func detect(in frame: Frame, workspace: DetectorWorkspace, timings: inout StageTimings?, into markers: inout [MarkerDetection]) throws {
        try measure("grayscale", &timings) { try Grayscale.convert(frame, into: &workspace.gray) }
        try detect(in: workspace.gray, workspace: workspace, timings: &timings, into: &markers)
    }

    public func detect(in image: GrayImage, workspace: DetectorWorkspace, timings: inout StageTimings?, into markers: inout [MarkerDetection]) throws {
        markers.removeAll(keepingCapacity: true)
        let p = parameters
        let longSide = max(image.width, image.height)
        let factor = p.maxSearchSide > 0 ? min(longSide / p.maxSearchSide, p.maxSearchFactor) : 1
        let reduce = factor >= 2
        if reduce { try measure("reduce", &timings) { try Self.reduce(image, by: factor, into: &workspace.reduced) } }
        let search = reduce ? workspace.reduced : image
        let searchLongSide = Double(max(search.width, search.height))
        workspace.contours.removeAll()
        for window in reduce ? p.reducedThresholdWindows : p.thresholdWindows {
            try measure("adaptive threshold", &timings) {
                try AdaptiveThreshold.binary(search, window: window, constant: p.thresholdConstant, into: &workspace.binary)
            }
            try measure("contours", &timings) {
                try Contours.find(in: workspace.binary, minPoints: Int(p.minPerimeterRate * searchLongSide),
                                  maxPoints: Int(p.maxPerimeterRate * searchLongSide), into: &workspace.contours)
            }
        }
        // The candidates live in the workspace's array, moved out while this frame uses it.
        var quads = workspace.quads
        workspace.quads = []
        defer { workspace.quads = quads }
        try measure("candidates", &timings) {
            try QuadCandidates.quads(from: workspace.contours, imageWidth: search.width, imageHeight: search.height, parameters: p, into: &quads)
        }
        if reduce {
            // Back to full resolution: pixel edges scale, pixel centres sit half a pixel in.
            let fx = Double(image.width) / Double(search.width), fy = Double(image.height) / Double(search.height)
            for i in quads.indices { quads[i] = quads[i].map { Point2(x: ($0.x + 0.5) * fx - 0.5, y: ($0.y + 0.5) * fy - 0.5) } }
        }
        let outset = p.contourOutset * (reduce ? Double(factor) : 1)
        if outset != 0 { for i in quads.indices { quads[i] = quads[i].outset(by: outset) } }
        for quad in quads {
            // Candidates come largest first, and markers do not nest (see removeDuplicateIDs): an outline
            // inside a marker already read (its inner border, a blob of its code) is not read at all.
            if markers.contains(where: { SceneGeometry.contains($0.quad, quad.center) }) { continue }
            guard let first = try read(quad, in: image, workspace: workspace, timings: &timings),
                  Double(first.borderErrors) <= p.maxBorderErrorRate * 24 else { continue }
            guard p.refineCorners else {
                if let marker = decode(first, quad: quad) { markers.append(marker) }
                continue
            }
            // A black border: refine the corners and read the code again from them. The refined read is
            // the one reported; when both reads are sure they must agree, since a code read from a grid
            // that is a cell fraction off can be another valid ID.
            let refined = measure("corner refinement", &timings) { CornerRefiner.refine(quad, in: image, scratch: &workspace.refiner) }
            guard refined != quad else {
                // No edge could be fitted (an edge hidden or at the image border): the polygon's corners.
                if let marker = decode(first, quad: quad) { markers.append(marker) }
                continue
            }
            let early = decode(first, quad: quad)
            guard let second = try read(refined, in: image, workspace: workspace, timings: &timings),
                  Double(second.borderErrors) <= p.maxBorderErrorRate * 24 else { continue }
            if let marker = decode(second, quad: refined) {
                if let early, early.id != marker.id { continue }
                markers.append(marker)
            } else if let early {
                // Only the first read is sure: keep its code, report the refined corners in its order.
                let turn = (0..<4).first { early.quad[0] == quad[$0] } ?? 0
                markers.append(MarkerDetection(id: early.id, quad: Quad(refined[turn], refined[(turn + 1) % 4], refined[(turn + 2) % 4], refined[(turn + 3) % 4])))
            }
        }
        Self.removeDuplicateIDs(&markers)
        Self.insertionSort(&markers) { $0.id < $1.id }
        timings?.countFrame()
    }

    /// The frame shrunk by a whole factor (area averaging) into `reduced`.
    static func reduce(_ image: GrayImage, by factor: Int, into reduced: inout GrayImage) throws {
        GrayImage.reuse(&reduced, width: image.width / factor, height: image.height / factor)
        let status = image.pixels.withUnsafeBufferPointer { source in
            reduced.pixels.withUnsafeMutableBufferPointer {
                cvb_reduce_gray(source.baseAddress, Int32(image.width), Int32(image.height), Int32(image.width), Int32(factor), $0.baseAddress)
            }
        }
        guard status >= 0 else { throw MarkerKitError.internalFailure(String(cString: cvb_last_error())) }
    }

    typealias Reading = CellSampler.Grid

    /// Stages 5 to 7 on one candidate: nil when its middle is flat.
    private func read(_ quad: Quad, in image: GrayImage, workspace: DetectorWorkspace, timings: inout StageTimings?) throws -> Reading? {
        let p = parameters
        try measure("unwarp", &timings) { try Unwarp.square(quad, from: image, pixelsPerCell: p.pixelsPerCell, into: &workspace.square) }
        let split = measure("otsu", &timings) { Otsu.split(workspace.square, border: p.pixelsPerCell) }
        guard split.contrast >= p.minContrast else { return nil }
        return measure("cell sampling", &timings) {
            CellSampler.grid(of: workspace.square, threshold: split.threshold, pixelsPerCell: p.pixelsPerCell, marginRate: p.cellMarginRate)
        }
    }

    /// Stage 8: the code, when every data cell is read surely enough.
    private func decode(_ reading: Reading, quad: Quad) -> MarkerDetection? {
        guard reading.confidence >= parameters.minCellConfidence else { return nil }
        return CodeReader.read(data: reading.data, borderErrors: reading.borderErrors, quad: quad, dictionary: dictionary, parameters: parameters)
    }

    /// Markers do not nest: a code read inside a larger marker (the same marker's inner border edge, or a
    /// part of its code that happens to form a valid code) is dropped, whatever its ID.
    /// In place: the kept markers, largest first.
    static func removeDuplicateIDs(_ markers: inout [MarkerDetection]) {
        insertionSort(&markers) { $0.meanSide > $1.meanSide }
        var kept = 0
        for index in markers.indices {
            let marker = markers[index], center = marker.center
            if !markers[0..<kept].contains(where: { SceneGeometry.contains($0.quad, center) }) {
                markers[kept] = marker
                kept += 1
            }
        }
        markers.removeLast(markers.count - kept)
    }

    /// A stable sort in place that needs no buffer (the standard sort may take one from the heap); the
    /// marker lists of a frame are short.
    static func insertionSort(_ markers: inout [MarkerDetection], by before: (MarkerDetection, MarkerDetection) -> Bool) {
        var i = 1
        while i < markers.count {
            let marker = markers[i]
            var j = i
            while j > 0, before(marker, markers[j - 1]) {
                markers[j] = markers[j - 1]
                j -= 1
            }
            markers[j] = marker
            i += 1
        }
    }

    private func measure<T>(_ stage: String, _ timings: inout StageTimings?, _ body: () throws -> T) rethrows -> T {
        guard timings != nil else { return try body() }
        let clock = ContinuousClock()
        let start = clock.now
        let result = try body()
        timings!.add(stage, clock.now - start)
        return result
    }
}

enum SceneGeometry {
    /// Whether `p` lies inside the convex quadrilateral `quad`.
    static func contains(_ quad: [Point2], _ p: Point2) -> Bool {
        contains(Quad(corners: quad), p)
    }

    static func contains(_ quad: Quad, _ p: Point2) -> Bool {
        var sign = 0.0
        for i in 0..<4 {
            let a = quad[i], b = quad[(i + 1) % 4]
            let cross = (b.x - a.x) * (p.y - a.y) - (b.y - a.y) * (p.x - a.x)
            if cross != 0 {
                if sign == 0 { sign = cross } else if (cross > 0) != (sign > 0) { return false }
            }
        }
        return true
    }
}


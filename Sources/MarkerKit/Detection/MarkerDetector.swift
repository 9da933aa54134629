import MarkerKitKernels

/// The classic square-marker detector as a list of stages, each in its own file under
/// `Detection/MarkerStages/`, named by its number in the pipeline: (1 grayscale, in `Core/Images`, as
/// capture and calibration use it too), 2 adaptive threshold, 3 contours, 4 convex 4-gon candidates
/// (4b a local search at full size), 5 unwarp, 6 Otsu, 7 cell sampling, 8 code reading (8b read checks;
/// one of them, refusing light cards, comes before 5), 9 corner refinement. Pose is separate (`MarkerPoseEstimator`), as it needs a calibration and a marker size.
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
        // The candidates live in the workspace's array, moved out while this frame uses it.
        var quads = workspace.quads
        workspace.quads = []
        defer { workspace.quads = quads }
        let limits = Self.contourLengthLimits(longSide: longSide, factor: reduce ? factor : 1, parameters: p)
        let seedLengths = reduce ? LocalSearch.seedLengths(candidateLimits: limits, factor: factor, maxSide: p.localSearchMaxSide) : nil
        try findCandidates(in: search, windows: reduce ? p.reducedThresholdWindows : p.thresholdWindows, limits: limits,
                           seedLengths: seedLengths, workspace: workspace, timings: &timings, into: &quads)
        if reduce {
            // Back to full resolution: pixel edges scale, pixel centres sit half a pixel in.
            let fx = Double(image.width) / Double(search.width), fy = Double(image.height) / Double(search.height)
            for i in quads.indices { quads[i] = quads[i].map { Point2(x: ($0.x + 0.5) * fx - 0.5, y: ($0.y + 0.5) * fy - 0.5) } }
        }
        let outset = p.contourOutset * (reduce ? Double(factor) : 1)
        if outset != 0 { for i in quads.indices { quads[i] = quads[i].outset(by: outset) } }
        try readCandidates(quads, in: image, workspace: workspace, timings: &timings, into: &markers)
        if seedLengths != nil {
            try searchLocally(in: image, factor: factor, workspace: workspace, timings: &timings, markers: &markers)
        } else {
            try searchSheet(in: image, limits: limits, workspace: workspace, timings: &timings, markers: &markers)
        }
        Self.removeDuplicateIDs(&markers)
        Self.insertionSort(&markers) { $0.id < $1.id }
        timings?.countFrame()
    }

    /// The contour lengths (in points) that can be a marker's outline in a search image reduced by `factor`.
    /// The perimeter limits are OpenCV's, in points of a contour traced at full resolution. A contour is a
    /// chain of pixel centres: a dark square s pixels wide has 4(s - 1) of them, and the same square
    /// reduced by f has 4(s/f - 1), which is 4(f - 1) pixels short once scaled back. Dividing the limit by
    /// f alone would refuse, at 2608 px, phone-photo markers of 20-22 px that the full-size rule (and
    /// OpenCV) accepts; the limit is converted for the chain instead.
    static func contourLengthLimits(longSide: Int, factor: Int, parameters p: DetectorParameters) -> ClosedRange<Int> {
        let minimum = p.minPerimeterRate * Double(longSide), maximum = p.maxPerimeterRate * Double(longSide)
        guard factor > 1 else { return Int(minimum)...max(Int(minimum), Int(maximum)) }
        let f = Double(factor)
        let low = max(4, Int(((minimum + 4) / f - 4).rounded(.down)))
        return low...max(low, Int((maximum / f).rounded(.up)))
    }

    /// The frame shrunk by a whole factor (area averaging) into `reduced`; bilinear (OpenCV's resize) when
    /// the size is not a multiple of the factor.
    static func reduce(_ image: GrayImage, by factor: Int, into reduced: inout GrayImage) throws {
        guard image.width % factor == 0, image.height % factor == 0 else {
            return try GrayImage.resize(image, width: image.width / factor, height: image.height / factor, bilinear: true, into: &reduced)
        }
        GrayImage.reuse(&reduced, width: image.width / factor, height: image.height / factor)
        let status = image.pixels.withUnsafeBufferPointer { source in
            reduced.pixels.withUnsafeMutableBufferPointer {
                mkk_reduce_gray(source.baseAddress, Int32(image.width), Int32(image.height), Int32(image.width), Int32(factor), $0.baseAddress)
            }
        }
        try Bridge.check(status)
    }

    /// Stages 2-4: the binary images of all threshold windows in one sweep, then each window's contours
    /// and candidates, the windows on the worker pool (each with its own buffers); their candidates pooled in
    /// window order, then near-duplicates merged: the same candidates as the passes one after another.
    /// With `seedLengths`, contours of those lengths also become the local search's seeds
    /// (`workspace.seeds`). With `oneCore` the windows are traced on this thread only (together): small
    /// crops handed to whichever thread was free made that thread's buffers grow now and then in a steady
    /// stream (1-8 allocations in 100 frames of `track` at 1080p, when the tracer's buffers were per thread).
    private func findCandidates(in search: GrayImage, windows: [Int], limits: ClosedRange<Int>, seedLengths: ClosedRange<Int>? = nil,
                                oneCore: Bool = false, workspace: DetectorWorkspace, timings: inout StageTimings?,
                                into quads: inout [Quad]) throws {
        let p = parameters
        try measure("adaptive threshold", &timings) {
            try AdaptiveThreshold.binaries(search, windows: windows, constant: p.thresholdConstant, workspaces: workspace.thresholdBands,
                                           maxWorkers: workspace.frameWorkers,
                                           into: &workspace.binaries)
        }
        (workspace.binaryWidth, workspace.binaryHeight) = (search.width, search.height)
        let minPoints = limits.lowerBound, maxPoints = limits.upperBound
        workspace.preparePasses(windows.count)
        let passes = workspace.passes
        // On one core the windows are traced together (their steps overlap: at 640x480 with 50 markers
        // 3.9 -> 3.1 ms a frame); on more, each window is a job of its own, handed to whichever worker is
        // free, which at 2 threads beat pairs traced together (docs/MEASUREMENTS.md, "Tracing together").
        let groups = !oneCore && WorkerPool.workers(atMost: workspace.frameWorkers) > 1 ? windows.count : 1
        workspace.binaries.withUnsafeBufferPointer { binaries in
            var holeWindows = 0
            for (k, window) in windows.enumerated() where window <= p.holeBordersUpToWindow { holeWindows |= 1 << k }
            let job = TracePasses(binaries: binaries.baseAddress!, width: search.width, height: search.height, windows: windows.count, groups: groups,
                                  minPoints: minPoints, maxPoints: maxPoints, holeWindows: holeWindows, seedLengths: seedLengths, parameters: p,
                                  passes: passes)
            WorkerPool.forEach(groups, maxWorkers: workspace.frameWorkers, job)
        }
        quads.removeAll(keepingCapacity: true)
        if seedLengths != nil { workspace.seeds.removeAll(keepingCapacity: true) }
        for index in 0..<windows.count {
            let pass = passes[index]
            if let error = pass.error { throw error }
            quads.append(contentsOf: pass.quads)
            if seedLengths != nil { workspace.seeds.append(contentsOf: pass.seeds) }
        }
        if timings != nil {
            // Time per stage summed over the windows (on several cores the frame takes less than the sum).
            for index in 0..<windows.count { timings!.add("contours", passes[index].contoursTime) }
            for index in 0..<windows.count { timings!.add("candidates", passes[index].candidatesTime) }
        }
        measure("candidates", &timings) {
            QuadCandidates.removeDuplicates(&quads, rate: p.duplicateDistanceRate, nestedRate: p.nestedPerimeterRate, scratch: &workspace.keyedQuads)
        }
    }

    /// Stage 4b (`LocalSearch`): the regions around seeds where no marker was read, thresholded, traced
    /// and read again at full resolution; their markers added to `markers`. Seeds near markers that touch
    /// others (a sheet of them) are searched a marker's side round, and again when markers found there
    /// touch them (at most `sheetRounds` searches).
    private func searchLocally(in image: GrayImage, factor: Int, workspace: DetectorWorkspace, timings: inout StageTimings?,
                               markers: inout [MarkerDetection]) throws {
        guard !workspace.seeds.isEmpty else { return }
        let p = parameters
        var regions = workspace.regions, cropQuads = workspace.cropQuads, found = workspace.localQuads, local = workspace.localMarkers
        var pads = workspace.seedPads, sides = workspace.sheetSides
        (workspace.regions, workspace.cropQuads, workspace.localQuads, workspace.localMarkers) = ([], [], [], [])
        (workspace.seedPads, workspace.sheetSides) = ([], [])
        defer {
            (workspace.regions, workspace.cropQuads, workspace.localQuads, workspace.localMarkers) = (regions, cropQuads, found, local)
            (workspace.seedPads, workspace.sheetSides) = (pads, sides)
        }
        let limits = Self.contourLengthLimits(longSide: max(image.width, image.height), factor: 1, parameters: p)
        let margin = (p.thresholdWindows.max() ?? 1) / 2 + 1
        pads.removeAll(keepingCapacity: true)
        for _ in 0..<Self.sheetRounds {
            measure("local search", &timings) {
                LocalSearch.sheetSides(markers: markers, cells: dictionary.markerSize + 2, into: &sides)
                regions.removeAll(keepingCapacity: true)
                LocalSearch.addRegions(seeds: workspace.seeds, factor: factor, imageWidth: image.width, imageHeight: image.height, markers: markers,
                                       sheetSides: sides, maxSide: p.localSearchMaxSide, pads: &pads, into: &regions)
            }
            guard !regions.isEmpty else { return }
            found.removeAll(keepingCapacity: true)
            for region in regions {
                let box = LocalSearch.withMargin(region, margin, imageWidth: image.width, imageHeight: image.height)
                var crop = measure("local search", &timings) { LocalSearch.crop(image, box, spare: &workspace.cropPixels) }
                defer { LocalSearch.release(&crop, to: &workspace.cropPixels) }
                try findCandidates(in: crop, windows: p.thresholdWindows, limits: limits, oneCore: true, workspace: workspace,
                                   timings: &timings, into: &cropQuads)
                for quad in cropQuads {
                    let moved = quad.map { Point2(x: $0.x + Double(box.x0), y: $0.y + Double(box.y0)) }.outset(by: p.contourOutset)
                    let centre = moved.center
                    guard centre.x >= Double(region.x0), centre.y >= Double(region.y0), centre.x < Double(region.x1), centre.y < Double(region.y1),
                          !markers.contains(where: { SceneGeometry.contains($0.quad, centre) }) else { continue }
                    found.append(moved)
                }
            }
            QuadCandidates.removeDuplicates(&found, rate: p.duplicateDistanceRate, nestedRate: p.nestedPerimeterRate, scratch: &workspace.keyedQuads)
            try readCandidates(found, in: image, workspace: workspace, timings: &timings, into: &local)
            guard !local.isEmpty else { return }
            markers.append(contentsOf: local)
        }
    }

    /// How many times seeds are searched (a sheet of touching markers read in part at reduced size: round
    /// the seeds by the markers read, then round those by the markers that search found, and once more).
    static let sheetRounds = 3

    /// Stages 5-9 on the candidates (largest first) on the worker pool, each worker with its own buffers. A
    /// candidate inside a marker read from an earlier one is not read (markers do not nest: its inner
    /// border, a blob of its code). The markers are exactly those of reading the candidates one after
    /// another: the reads are done in waves, and after each a pass in order takes the reads that count and
    /// lists the candidates that still need one. The first wave is every candidate not inside an earlier
    /// one; usually a second is not needed.
    func readCandidates(_ quads: [Quad], in image: GrayImage, workspace: DetectorWorkspace,
                                timings: inout StageTimings?, into markers: inout [MarkerDetection]) throws {
        let count = quads.count
        var reads = workspace.reads, wasRead = workspace.wasRead, wave = workspace.wave, anotherListsMarker = workspace.anotherListsMarker
        (workspace.reads, workspace.wasRead, workspace.wave, workspace.anotherListsMarker) = ([], [], [], [])
        defer { (workspace.reads, workspace.wasRead, workspace.wave, workspace.anotherListsMarker) = (reads, wasRead, wave, anotherListsMarker) }
        reads.removeAll(keepingCapacity: true)
        reads.append(contentsOf: repeatElement(nil, count: count))
        wasRead.removeAll(keepingCapacity: true)
        wasRead.append(contentsOf: repeatElement(false, count: count))
        anotherListsMarker.removeAll(keepingCapacity: true)
        anotherListsMarker.append(contentsOf: repeatElement(nil, count: count))
        wave.removeAll(keepingCapacity: true)
        for i in 0..<count {
            let centre = quads[i].center
            if !quads[0..<i].contains(where: { SceneGeometry.contains($0, centre) }) { wave.append(i) }
        }
        // A read inside a larger candidate that a reader of another code list reads (every stage, its
        // checks included) is a piece of that marker's code: in the 10,000 mixed renders DICT_4X4_250/1000
        // read ID 145 13 px wide inside a 50 px DICT_7X7_50 marker and DICT_5X5_1000 ID 668 9 px wide
        // inside another, their borders being the 7x7 code's dark cells. Asked only of reads in a later
        // wave (inside a larger candidate this dictionary did not read), once per enclosing candidate.
        func insideAnotherMarker(_ i: Int) throws -> Bool {
            let centre = quads[i].center
            for j in 0..<i where SceneGeometry.contains(quads[j], centre) {
                if anotherListsMarker[j] == nil {
                    var other = self
                    anotherListsMarker[j] = false
                    // Most enclosing candidates are a marker's paper (a light card on a darker ground): the
                    // eight reads are asked only of one with a marker's dark border.
                    guard ReadCheck.hasDarkBorder(quads[j], in: image) else { continue }
                    for list in MarkerDictionary.everyCodeList where list.id.codeList != dictionary.id.codeList {
                        other.dictionary = list
                        if try other.read(candidate: quads[j], in: image, reader: readers[0]) != nil {
                            anotherListsMarker[j] = true
                            break
                        }
                    }
                }
                if anotherListsMarker[j] == true { return true }
            }
            return false
        }
        let readers = workspace.readers
        for reader in readers {
            reader.error = nil
            reader.timings = timings == nil ? nil : StageTimings()
        }
        markers.removeAll(keepingCapacity: true)
        while !wave.isEmpty {
            wave.withUnsafeBufferPointer { indices in
                reads.withUnsafeMutableBufferPointer { reads in
                    quads.withUnsafeBufferPointer { quads in
                        WorkerPool.forEach(indices.count, maxWorkers: workspace.frameWorkers, ReadWave(detector: self, image: image, quads: quads.baseAddress!,
                                                                 indices: indices.baseAddress!, reads: reads.baseAddress!, readers: readers))
                    }
                }
            }
            for reader in readers { if let error = reader.error { throw error } }
            workspace.evenReaders()
            for i in wave { wasRead[i] = true }
            markers.removeAll(keepingCapacity: true)
            wave.removeAll(keepingCapacity: true)
            for i in 0..<count {
                let centre = quads[i].center
                if markers.contains(where: { SceneGeometry.contains($0.quad, centre) }) { continue }
                if !wasRead[i] {
                    wave.append(i)
                } else if let marker = reads[i], try !insideAnotherMarker(i) {
                    markers.append(marker)
                }
            }
        }
        if timings != nil { for reader in readers { timings!.add(reader.timings!) } }
    }

    /// Stages 3-4 of a group of threshold windows (windows group, group + groups, ...), into their passes'
    /// buffers: the group's windows traced together, then each one's candidates.
    private struct TracePasses: WorkerPoolJob {
        let binaries: UnsafePointer<UInt8>
        let width: Int, height: Int, windows: Int, groups: Int, minPoints: Int, maxPoints: Int
        /// Bit k: window k's hole borders are traced too.
        let holeWindows: Int
        let seedLengths: ClosedRange<Int>?
        let parameters: DetectorParameters
        let passes: [DetectorWorkspace.Pass]

        func run(_ group: Int, worker: Int) {
            let mine = stride(from: group, to: windows, by: groups)
            for index in mine { passes[index].error = nil }
            let clock = ContinuousClock()
            do {
                let start = clock.now
                let size = width * height
                let shortest = min(minPoints, seedLengths?.lowerBound ?? minPoints)
                for first in stride(from: group, to: windows, by: groups * Contours.togetherMax) {
                    // Window k of this call is first + k * groups. (No closure of a var: that would be a
                    // heap box a frame.)
                    let count = min(Contours.togetherMax, (windows - first + groups - 1) / groups), step = groups
                    for k in 0..<count { passes[first + k * step].contours.removeAll() }
                    try Contours.find(together: count, width: width, height: height, minPoints: shortest, maxPoints: maxPoints,
                                      holes: { holeWindows & (1 << (first + $0 * step)) != 0 },
                                      image: { (binaries + (first + $0 * step) * size, passes[first + $0 * step].trace) },
                                      found: { passes[first + $0 * step].contours.append($1) })
                }
                // Time per window: the group's tracing shared evenly.
                let traced = (clock.now - start) / ((windows - group + groups - 1) / groups)
                for index in mine {
                    let pass = passes[index], begun = clock.now
                    pass.quads.removeAll(keepingCapacity: true)
                    try QuadCandidates.appendQuads(from: pass.contours, imageWidth: width, imageHeight: height, parameters: parameters,
                                                   minLength: minPoints, to: &pass.quads)
                    pass.seeds.removeAll(keepingCapacity: true)
                    if let seedLengths { try LocalSearch.appendSeeds(from: pass.contours, lengths: seedLengths, to: &pass.seeds) }
                    (pass.contoursTime, pass.candidatesTime) = (traced, clock.now - begun)
                }
            } catch {
                passes[group].error = error
            }
        }
    }

    /// Stages 5-9 on the candidates of a wave, each worker with its own buffers.
    private struct ReadWave: WorkerPoolJob {
        let detector: MarkerDetector
        let image: GrayImage
        let quads: UnsafePointer<Quad>
        let indices: UnsafePointer<Int>
        let reads: UnsafeMutablePointer<MarkerDetection?>
        let readers: [DetectorWorkspace.Reader]

        func run(_ k: Int, worker: Int) {
            let reader = readers[worker]
            guard reader.error == nil else { return }
            do {
                reads[indices[k]] = try detector.read(candidate: quads[indices[k]], in: image, reader: reader)
            } catch {
                reader.error = error
            }
        }
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

    /// `body`'s result, its time added to `timings` under `stage` when timings are kept.
    func measure<T>(_ stage: String, _ timings: inout StageTimings?, _ body: () throws -> T) rethrows -> T {
        guard timings != nil else { return try body() }
        let clock = ContinuousClock()
        let start = clock.now
        let result = try body()
        timings!.add(stage, clock.now - start)
        return result
    }
}

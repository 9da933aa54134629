/// The buffers one marker detector reuses from frame to frame: the gray frame, its reduced copy, per
/// threshold window the binary image, contours and candidates, per worker thread the unwarped square and
/// the corner refiner's profiles, and the reads of the candidates. A stream of frames of one size (`track`)
/// allocates them with its first frames only. One workspace per detecting thread (the detector's second
/// core works inside it).
public final class DetectorWorkspace {
    var gray = GrayImage.empty
    var reduced = GrayImage.empty
    /// The binary image of every threshold window, one after another (AdaptiveThreshold.binaries), and
    /// their size.
    var binaries: [UInt8] = []
    var binaryWidth = 0, binaryHeight = 0
    /// One per threshold window (the first `passCount` in use): the windows are traced in parallel.
    var passes: [Pass] = []
    var passCount = 0
    var quads: [Quad] = []
    /// The candidates with their perimeters and centres while near-duplicates are merged.
    var keyedQuads: [QuadCandidates.Keyed] = []
    /// The local search's seeds (search pixels), regions (full size), the crop's pixels and candidates,
    /// and the candidates and markers it found.
    var seeds: [LocalSearch.Box] = []
    var regions: [LocalSearch.Box] = []
    /// Each seed's padding when last searched, and each marker's side when it touches another (LocalSearch.addRegions).
    var seedPads: [Int] = []
    var sheetSides: [Double] = []
    var cropPixels: [UInt8] = []
    var cropQuads: [Quad] = []
    var localQuads: [Quad] = []
    var localMarkers: [MarkerDetection] = []
    /// At most this many workers for one frame's batches (0: as many as the pool gives). Frames detected
    /// several at once (`--jobs`) already fill the cores: each then takes its share, not the whole pool.
    public var frameWorkers = 0
    /// One box-sum buffer per threshold band there can be (a band per worker at most).
    let thresholdBands: [AdaptiveThreshold.Workspace] = (0..<WorkerPool.cores).map { _ in AdaptiveThreshold.Workspace() }
    /// One per worker the pool can have (`WorkerPool.cores`): candidates are read in parallel.
    var readers: [Reader] = (0..<WorkerPool.cores).map { _ in Reader() }
    /// Per candidate, in `quads` order: whether it was read yet, and what it read as.
    var reads: [MarkerDetection?] = []
    var wasRead: [Bool] = []
    /// Per candidate, once asked: whether a reader of another predefined code list reads it (`MarkerDetector.readCandidates`).
    var anotherListsMarker: [Bool?] = []
    var wave: [Int] = []

    /// The binary image of the last threshold window (a copy).
    var binary: GrayImage {
        let size = binaryWidth * binaryHeight
        guard size > 0, binaries.count >= size else { return .empty }
        return GrayImage(width: binaryWidth, height: binaryHeight, pixels: Array(binaries[(binaries.count - size)...]))
    }

    public init() {}

    /// Stages 3-4 of one threshold window.
    final class Pass {
        /// The tracer's buffers for this window, whichever worker traces it.
        let trace = Contours.Workspace()
        var contours = Contours.ContourSet()
        var quads: [Quad] = []
        /// Bounding boxes of the contours that may be markers too small to trace at reduced size.
        var seeds: [LocalSearch.Box] = []
        var error: (any Error)?
        var contoursTime = Duration.zero, candidatesTime = Duration.zero
    }

    /// Stages 5-9 on one worker thread.
    final class Reader {
        var square = GrayImage.empty
        var refiner = CornerRefiner.Scratch()
        var timings: StageTimings?
        var error: (any Error)?

        /// The room a reader's buffers have: the square's size, the refiner's capacities.
        struct Room {
            var square = (width: 0, height: 0), points = 0, strengths = 0, bridge = 0

            mutating func widen(to reader: Reader) {
                if reader.square.pixels.count > square.width * square.height { square = (reader.square.width, reader.square.height) }
                points = max(points, reader.refiner.points.capacity)
                strengths = max(strengths, reader.refiner.strengths.capacity)
                bridge = max(bridge, reader.refiner.bridge.count)
            }
        }

        /// At least `room` in every buffer. Which worker reads which candidate is not fixed, so after a wave
        /// every reader is given the largest room any reader needed: a worker that reads its first large
        /// candidate at frame 50 (one of many helpers on a big machine) finds the room made in the first
        /// frames instead of allocating in the live stream.
        func reserve(_ room: Room) {
            if square.pixels.count < room.square.width * room.square.height {
                square = GrayImage(width: room.square.width, height: room.square.height, pixels: [UInt8](repeating: 0, count: room.square.width * room.square.height))
            }
            refiner.points.reserveCapacity(room.points)
            refiner.strengths.reserveCapacity(room.strengths)
            if refiner.bridge.count < room.bridge { refiner.bridge = [Double](repeating: 0, count: room.bridge) }
        }
    }

    /// Every reader given the room of the largest (`Reader.reserve`), on the calling thread: one pass to
    /// find it, one to give it, each a few comparisons per reader once the room is made.
    func evenReaders() {
        var room = Reader.Room()
        for reader in readers { room.widen(to: reader) }
        for reader in readers { reader.reserve(room) }
    }

    /// `count` passes in use, the buffers of the others kept.
    func preparePasses(_ count: Int) {
        while passes.count < count { passes.append(Pass()) }
        passCount = count
    }
}

/// Every knob of the marker detector in one value. The defaults follow OpenCV's aruco detector where it
/// has the same knob, so the two can be compared like for like.
public struct DetectorParameters: Sendable, Equatable {
    /// Adaptive threshold windows in pixels (odd). Each window is one threshold pass; candidates from all
    /// passes are pooled. OpenCV: 3 to 23 in steps of 10.
    public var thresholdWindows: [Int] = [3, 13, 23]
    /// Frames whose larger side is at least twice this are thresholded and searched for outlines at
    /// reduced size, by a whole factor (ArUco 3's idea); candidates are mapped back, refined and read at
    /// full resolution. 0: never.
    public var maxSearchSide: Int = 960
    /// The largest reduction: 2 keeps a 20 px marker 10 px wide in the search (why not 4: docs/MEASUREMENTS.md,
    /// "Why the detector's parameters are what they are").
    public var maxSearchFactor: Int = 2
    /// The threshold windows on a reduced frame. 11 (22 px at full size, OpenCV's largest is 23) finds
    /// the markers that stand apart: a window narrower than a cell marks only a band along each edge of a
    /// marker's border, and with optical blur of 2-4 px that band is a thin ring broken by noise, whose
    /// outline is no 4-gon (the figures: docs/MEASUREMENTS.md, as above). 3 finds markers that touch (a
    /// marker chessboard, a tight grid), by the hole borders of their rings (`holeBordersUpToWindow`):
    /// with 11 alone, 60 touching renders at 1920x1080 lost 517 of the markers OpenCV reads.
    public var reducedThresholdWindows: [Int] = [3, 11]
    /// On a frame searched at reduced size, dark blobs of the search up to this many full-size pixels
    /// across where no marker was read are searched again at full resolution (`LocalSearch`): markers of
    /// 15-25 px on 2-3 K phone photos, whose half-size outline is not a clean 4-gon, and small markers
    /// bent around a bottle. 0: never.
    public var localSearchMaxSide: Double = 128
    /// Subtracted from the local mean: a pixel is dark when below mean - constant. OpenCV: 7.
    public var thresholdConstant: Double = 7
    /// Threshold windows of at most this size give their contours' hole borders as candidates too (the
    /// others, outer borders only). In a 3 px window a sharp marker is a ring one pixel wide; where two
    /// markers touch at a corner (ArUco's marker chessboards, tight grids) the rings join, the outer border
    /// runs round both, and the ring's hole border is the marker's only outline. On a reduced frame the
    /// 11 px window gives them too: there a blurred touching marker's border is a ring (11 px at half size
    /// is 22 at full) and the 3 px window's ring is broken by the blur. 0: outer borders only.
    public var holeBordersUpToWindow: Int = 11
    /// Smallest and largest marker perimeter, relative to the image's larger side. OpenCV: 0.03 and 4.
    public var minPerimeterRate: Double = 0.03
    public var maxPerimeterRate: Double = 4.0
    /// Candidate edges are moved this far outwards (in search pixels) before they are read. The contour
    /// runs through the dark pixels along a marker's edge, on average half a pixel inside it; at half
    /// size that is a pixel at full size, which puts a 20 px marker's cells a third of a cell off and
    /// leaves too little border for the corner fit (docs/MEASUREMENTS.md, as above). OpenCV: none.
    public var contourOutset: Double = 0.5
    /// Polygon approximation tolerance, relative to the contour's length. OpenCV: 0.03.
    public var polygonAccuracyRate: Double = 0.03
    /// Shortest side, relative to the perimeter. OpenCV: 0.05.
    public var minSideRate: Double = 0.05
    /// Corners closer to the image edge than this (pixels) are refused. OpenCV: 3.
    public var minDistanceToBorder: Double = 3
    /// Two candidates whose corners are on average closer than this, relative to the smaller perimeter,
    /// are one; the larger is kept. OpenCV: 0.05.
    public var duplicateDistanceRate: Double = 0.05
    /// A candidate that close to a larger one but with less than this part of its perimeter is not its
    /// duplicate but a square inside it, kept and read when the larger one does not read. With the
    /// distance rate above, a marker inside a white frame is that close to the frame's inner edge when it
    /// fills more than 0.78 of it, as on ChArUco boards of 0.8 (calib.io's, pyCamSet's); threshold
    /// windows give one square sides a pixel or two apart. OpenCV 4.6: none (the larger only).
    public var nestedPerimeterRate: Double = 0.9
    /// Pixels per cell in the unwarped square. OpenCV: 4.
    public var pixelsPerCell: Int = 8
    /// Part of each cell's side ignored at its edges when sampling. OpenCV: 0.13; a wider margin reads
    /// small, steep, blurred markers better (docs/MEASUREMENTS.md, as above).
    public var cellMarginRate: Double = 0.25
    /// Unwarped squares with less contrast (standard deviation of gray values) are refused. OpenCV: 5.
    public var minContrast: Double = 5
    /// Border cells that may read white, relative to the 24 border cells. OpenCV: 0.35; stricter here
    /// because the code corrects no errors, so the border is the main guard against false markers.
    public var maxBorderErrorRate: Double = 0.25
    /// Refine corners to sub-pixel precision by fitting the marker's outer edges; candidates with a clean
    /// border are read again from their refined corners when those moved a quarter of a cell or more.
    public var refineCorners: Bool = true
    /// The least sure data cell must be at least this sure (0: any majority, 1: unanimous). The code
    /// corrects no errors, so a cell read on a coin toss is refused rather than risk another valid ID
    /// (steep, blurred markers at 70-75 degrees read as other IDs at 0).
    public var minCellConfidence: Double = 0.5
    /// Data cells read less surely than `minCellConfidence` that a read may have, when no value of them
    /// gives another marker (see `CodeReader`). Dictionaries whose codes are farther apart allow more
    /// (`MarkerDictionary.erasableCells`: 4 for DICT_5X5_100, whose codes differ in at least 7 cells),
    /// which reads markers bent around a bottle, whose cells drift off the straight grid.
    public var maxUnsureCells: Int = 2

    public init() {}
}

/// What `CharucoDetector` found in one image: the board's chessboard corners, each with OpenCV's corner
/// ID and its sub-pixel position, and the board's markers it read.
public struct CharucoDetection: Sendable, Equatable {
    public struct Corner: Sendable, Equatable {
        public let id: Int
        public let point: Point2
        /// The point's standard deviation (px) from its own fit, where the detector gives one: larger
        /// where the board has fewer pixels per square, less contrast or more blur. A calibration weighs
        /// the corner by it.
        public let sigma: Double?

        public init(id: Int, point: Point2, sigma: Double? = nil) {
            self.id = id
            self.point = point
            self.sigma = sigma
        }
    }

    /// By corner ID.
    public var corners: [Corner]
    /// The board's markers, by ID.
    public var markers: [MarkerDetection]
    /// Markers read in the image whose IDs are not on this board (another board, or another dictionary's
    /// markers read as this one's).
    public var foreignMarkers: [MarkerDetection]

    /// Why a corner next to the markers read was not reported: the test each refused corner failed last.
    public enum Refusal: String, CaseIterable, Sendable, Codable {
        /// No window to fit: the corner too near the image's edge, or its squares' margins too narrow in pixels.
        case window
        /// The fit did not converge on the window's pixels.
        case fit
        /// Less contrast between the squares than `minContrast`.
        case contrast
        /// The fit's RMS above `maxResidual` of the contrast.
        case residual
        /// Dark where the board's white square is: the fit found another crossing (inside a marker, or of
        /// the squares' edges seen through blur) with the colours the other way round.
        case polarity
        /// A blur (σ) wider than the margin between the squares' edges and their markers, or than the window.
        case blur
        /// Fitted farther from its prediction than `maxShift` of a square, or outside the image.
        case shift
        /// A fitted edge more than `maxEdgeAngle` off the board line predicted there.
        case edgeAngle = "edge angle"
        /// Unlike the corners found around it: off their grid (`maxOffGrid`), or far more blurred (`maxBlurRatio`).
        case neighbours
    }

    /// Corners in view, predicted from the markers read (or the corners found), but not reported: how
    /// many failed each test.
    public var refusals: [Refusal: Int]

    public init(corners: [Corner], markers: [MarkerDetection], foreignMarkers: [MarkerDetection], refusals: [Refusal: Int] = [:]) {
        self.corners = corners
        self.markers = markers
        self.foreignMarkers = foreignMarkers
        self.refusals = refusals
    }

    /// Every corner's sigma in the order of `corners`, or nil when some corner has none.
    public var cornerSigmas: [Double]? {
        let sigmas = corners.compactMap(\.sigma)
        return sigmas.count == corners.count ? sigmas : nil
    }

    /// The refusals as "12 contrast, 3 shift" (the order of `Refusal`), or nil when none.
    public var refusalSummary: String? {
        let parts = Refusal.allCases.compactMap { r in refusals[r].map { "\($0) \(r.rawValue)" } }
        return parts.isEmpty ? nil : parts.joined(separator: ", ")
    }

    /// Whether the corners can pin a camera view: at least `minimum` of them, not all on one line of the
    /// board (a row, a column or a diagonal).
    public func isUsableView(columns: Int, minimum: Int = 6) -> Bool {
        guard corners.count >= minimum else { return false }
        let cells = corners.map { (x: $0.id % columns, y: $0.id / columns) }
        let a = cells[0]
        guard let b = cells.first(where: { $0.x != a.x || $0.y != a.y }) else { return false }
        return cells.contains { ($0.x - a.x) * (b.y - a.y) - ($0.y - a.y) * (b.x - a.x) != 0 }
    }
}

import CVBridge
import Foundation

/// The calibration capture assistant: watches frames, finds the board (on a reduced frame, refined at
/// full size), and keeps a view only when the board is found, held still, sharp, and new: its position,
/// size and skew differ enough from every kept view (the measures ROS's camera calibrator uses). Coverage
/// tells how much of the range of each measure the kept views span. A ChArUco board may be partly out
/// of the image (6 or more corners, not on one line, make a view); its views are measured on the corners
/// seen, and a fifth measure counts the image's four corners (the outer 20% of each side) that some kept
/// view put board corners in: the places a calibration is weakest and a chessboard rarely reaches.
public struct CaptureAssistant {
    public struct Settings: Sendable {
        public var target: CalibrationTarget
        /// The board must stay put this long (seconds of the source's own time).
        public var holdSeconds = 0.5
        /// Mean corner motion between frames that still counts as still, as a fraction of the image width.
        public var maxMotion = 0.003
        /// Variance of the Laplacian over the board; below it a view is too blurred.
        public var minSharpness = 20.0
        /// Sum of differences in (x, y, size, skew) to the nearest kept view (ROS: 0.2).
        public var minNovelty = 0.2
        public var count = 30
        /// Stop once the projection uncertainty (at infinity) is below this many pixels everywhere in the
        /// used area; nil stops on coverage.
        public var untilSigma: Double?
        /// The used area: the image without this share of its width and height on each side (where boards
        /// are rarely held and a calibration is extrapolated).
        public var margin = 0.1
        /// Views kept before the uncertainty counts.
        public var minimumViews = 5

        public init(board: Checkerboard) { target = .checkerboard(board) }

        public init(target: CalibrationTarget) { self.target = target }
    }

    /// A view's place in the space of views: x and y of the board in the image, its size and skew (0-1).
    public struct ViewParameters: Codable, Sendable, Equatable {
        public let x: Double, y: Double, size: Double, skew: Double
        var values: [Double] { [x, y, size, skew] }

        func distance(to other: ViewParameters) -> Double { zip(values, other.values).map { abs($0 - $1) }.reduce(0, +) }
    }

    public struct View: Sendable {
        public let frame: Frame
        public let time: Double
        public let corners: [Point2]
        /// The corners' IDs (all of a chessboard's, in order).
        public let cornerIDs: [Int]
        /// Each corner's sigma from its own fit (ChArUco corners), as `Calibrator.View` holds them.
        public var cornerSigmas: [Double]? = nil
        public let parameters: ViewParameters
        public let sharpness: Double
    }

    public enum Verdict: Equatable, Sendable {
        case noBoard, moving, holding, blurred, notNew, kept
    }

    public let settings: Settings
    public private(set) var kept: [View] = []
    private var previous: (corners: [Point2], ids: [Int])?
    /// The board's corners in the last frame considered (nil when it was not found).
    public var lastCorners: [Point2]? { previous?.corners }
    private var stillSince: Double?

    /// A ChArUco board's detector, made once for every frame.
    private let charucoDetector: CharucoDetector?

    public init(settings: Settings) {
        self.settings = settings
        if case .charuco(let board) = settings.target { charucoDetector = CharucoDetector(board: board) } else { charucoDetector = nil }
    }

    /// Looks at one frame; keeps it when it passes every gate. With `force` (a user's "keep this view"),
    /// a frame in which the board is found and sharp is kept without waiting for it to be still and new.
    public mutating func consider(_ sourced: SourcedFrame, force: Bool = false) throws -> Verdict {
        let gray = try Grayscale.image(from: sourced.frame)
        guard let (corners, ids, sigmas) = try findBoard(in: gray) else {
            previous = nil
            stillSince = nil
            return .noBoard
        }
        defer { previous = (corners, ids) }
        let motion = previous.map { Self.motion(from: $0, to: (corners, ids)) } ?? .infinity
        guard force || motion <= settings.maxMotion * Double(gray.width) else {
            stillSince = nil
            return .moving
        }
        let since = stillSince ?? sourced.time
        stillSince = since
        guard force || sourced.time - since >= settings.holdSeconds else { return .holding }
        let sharpness = Self.sharpness(of: gray, around: corners)
        guard sharpness >= settings.minSharpness else { return .blurred }
        let parameters: ViewParameters
        switch settings.target {
        case .checkerboard(let board): parameters = Self.parameters(of: corners, board: board, width: gray.width, height: gray.height)
        case .charuco(let board): parameters = Self.parameters(of: corners, ids: ids, board: board, width: gray.width, height: gray.height)
        }
        // A view that reaches an image corner no kept view reached is new whatever its measures.
        let reached = Self.imageCorners(corners, width: gray.width, height: gray.height)
        guard force || !reached.isSubset(of: coveredImageCorners) || kept.allSatisfy({ parameters.distance(to: $0.parameters) > settings.minNovelty }) else {
            return .notNew
        }
        // The live uncertainty from the corners the stored calibration will use: calibrate finds the board
        // in the kept frame again and fits its corners (ChessboardFinder.find), so a kept view's corners come
        // from the same search (once per kept view, not per frame); where it finds none, the live corners
        // are refined and fitted the same way. ChArUco corners are the detector's fits already.
        var keptCorners = corners
        if case .checkerboard(let board) = settings.target {
            let finder = ChessboardFinder(innerColumns: board.innerColumns, innerRows: board.innerRows)
            keptCorners = try finder.find(in: gray)?.corners ?? finder.fit(corners, in: gray)
        }
        kept.append(View(frame: sourced.frame, time: sourced.time, corners: keptCorners, cornerIDs: ids, cornerSigmas: sigmas, parameters: parameters,
                         sharpness: sharpness))
        coveredImageCorners.formUnion(reached)
        stillSince = nil // the next view needs its own still moment
        updateUncertainty(width: gray.width, height: gray.height)
        return .kept
    }

    /// The board's corners in a frame, found as `consider` finds them, without keeping or remembering
    /// anything: what a rig's other cameras show while the first waits for a still, new view.
    public func corners(in sourced: SourcedFrame) throws -> [Point2]? {
        try findBoard(in: try Grayscale.image(from: sourced.frame))?.0
    }

    /// Takes back the last kept view: a rig's set in which another camera could not keep its view.
    public mutating func discardLast() {
        guard let last = kept.popLast() else { return }
        coveredImageCorners = kept.reduce(into: Set<Int>()) { $0.formUnion(Self.imageCorners($1.corners, width: $1.frame.width, height: $1.frame.height)) }
        if kept.count < 3 { uncertainty = nil } else { updateUncertainty(width: last.frame.width, height: last.frame.height) }
    }

    /// The image corners (0 top-left, 1 top-right, 2 bottom-right, 3 bottom-left) kept views reached.
    public private(set) var coveredImageCorners = Set<Int>()

    /// Which image corners (the outer 20% of the width and of the height) hold some of `corners`.
    static func imageCorners(_ corners: [Point2], width: Int, height: Int) -> Set<Int> {
        var reached = Set<Int>()
        let w = Double(width), h = Double(height)
        for p in corners {
            let left = p.x < 0.2 * w, right = p.x > 0.8 * w, top = p.y < 0.2 * h, bottom = p.y > 0.8 * h
            if top && left { reached.insert(0) }
            if top && right { reached.insert(1) }
            if bottom && right { reached.insert(2) }
            if bottom && left { reached.insert(3) }
        }
        return reached
    }

    /// Mean motion of the corners seen in both frames (infinite when fewer than four are).
    static func motion(from a: (corners: [Point2], ids: [Int]), to b: (corners: [Point2], ids: [Int])) -> Double {
        var before: [Int: Point2] = [:]
        for (id, p) in zip(a.ids, a.corners) { before[id] = p }
        let moves = zip(b.ids, b.corners).compactMap { id, p in before[id].map { $0.distance(to: p) } }
        return moves.count >= 4 ? moves.reduce(0, +) / Double(moves.count) : .infinity
    }

    /// How much of each measure's useful range (x, y, size, skew) the kept views span, 0-1; for a ChArUco
    /// board a fifth, the share of the image's four corners reached.
    public var coverage: [Double] {
        let corners = Double(coveredImageCorners.count) / 4
        guard let first = kept.first?.parameters.values else { return isCharuco ? [0, 0, 0, 0, 0] : [0, 0, 0, 0] }
        var low = first, high = first
        for view in kept.dropFirst() {
            low = zip(low, view.parameters.values).map { min($0, $1) }
            high = zip(high, view.parameters.values).map { max($0, $1) }
        }
        low[3] = 0 // small size and no skew are not rewarded
        low[2] = min(low[2], high[2])
        let ranges = [0.7, 0.7, 0.4, 0.5]
        let spans = (0..<4).map { min(1, (high[$0] - low[$0]) / ranges[$0]) }
        return isCharuco ? spans + [corners] : spans
    }

    var isCharuco: Bool { if case .charuco = settings.target { return true } else { return false } }

    public var isComplete: Bool {
        if kept.count >= settings.count { return true }
        if let target = settings.untilSigma {
            return kept.count >= settings.minimumViews && (uncertainty.map { $0.worst.sigma < target } ?? false)
        }
        return kept.count >= 10 && coverage.allSatisfy { $0 >= 1 }
    }

    /// Where a calibration from the kept views is least sure: its projection uncertainty (at infinity)
    /// over a 16x9 grid of the used area, worst point and median. Nil before 3 views, or while the views
    /// cannot give a calibration (too similar to pin the focal length).
    public struct UncertaintyState: Sendable {
        public let worst: ProjectionUncertainty.Point
        public let median: Double
        public let views: Int
        public let width: Int, height: Int
        /// The map itself: sigma at the 16x9 grid points, row by row.
        public let points: [ProjectionUncertainty.Point]

        /// "top left", "middle", "bottom right" ...: where in the image the worst point is.
        public var place: String { CalibrationVerdict.place(worst, width: Double(max(width, 1)), height: Double(max(height, 1))) }
    }

    public private(set) var uncertainty: UncertaintyState?

    /// Calibrates from the kept views and measures the uncertainty over the used area.
    mutating func updateUncertainty(width: Int, height: Int) {
        guard kept.count >= 3 else { return }
        let views = kept.enumerated().map { Calibrator.View(file: "view_\($0.offset)", status: .used, corners: $0.element.corners, cornerIDs: $0.element.cornerIDs,
                                                                   cornerSigmas: $0.element.cornerSigmas) }
        guard let result = try? Calibrator(target: settings.target).calibrate(views: views, width: width, height: height, name: "capture"),
              let measure = try? ProjectionUncertainty(result.calibration) else { return }
        guard let points = try? measure.sigmas(at: measure.grid(columns: 16, rows: 9, margin: settings.margin), range: nil),
              let worst = points.max(by: { $0.sigma < $1.sigma }) else { return }
        let sigmas: [Double] = points.map { $0.sigma }.sorted()
        uncertainty = UncertaintyState(worst: worst, median: sigmas[sigmas.count / 2], views: kept.count, width: width, height: height, points: points)
    }

    /// The board's corners and their IDs: a chessboard found on a reduced frame and refined at full size;
    /// a ChArUco board's corners when they make a view (6 or more, not on one line).
    /// The board's corners, their IDs and (ChArUco) their fits' sigmas, or nil when it is not found.
    func findBoard(in gray: GrayImage) throws -> ([Point2], [Int], [Double]?)? {
        switch settings.target {
        case .checkerboard(let board):
            return try FastChessboardFinder(innerColumns: board.innerColumns, innerRows: board.innerRows).find(in: gray).map { ($0, Array($0.indices), nil) }
        case .charuco(let board):
            guard let found = try charucoDetector?.detect(in: gray) else { return nil }
            guard found.isUsableView(columns: board.squaresX - 1) else { return nil }
            return (found.corners.map(\.point), found.corners.map(\.id), found.cornerSigmas)
        }
    }

    /// ROS camera_calibration's view measures from the board's outer inner-corners.
    public static func parameters(of corners: [Point2], board: Checkerboard, width: Int, height: Int) -> ViewParameters {
        let columns = board.innerColumns
        let outline = [corners[0], corners[columns - 1], corners[corners.count - 1], corners[corners.count - columns]]
        return parameters(outline: outline, corners: corners, area: nil, width: width, height: height)
    }

    /// The same measures for part of a ChArUco board: skew from the board's outline as the corners seen
    /// place it (a homography), position and size from the corners seen (their bounding box).
    public static func parameters(of corners: [Point2], ids: [Int], board: CharucoBoard, width: Int, height: Int) -> ViewParameters {
        let columns = board.squaresX - 1, rows = board.squaresY - 1
        let target = CalibrationTarget.charuco(board)
        func position(_ id: Int) -> Point2 { let p = target.point(of: id); return Point2(x: p.0, y: p.1) }
        let xs = corners.map(\.x), ys = corners.map(\.y)
        let area = (xs.max()! - xs.min()!) * (ys.max()! - ys.min()!)
        let square = [Point2(x: 0, y: 0), Point2(x: 1, y: 0), Point2(x: 1, y: 1), Point2(x: 0, y: 1)]
        let outline = Homography(from: ids.map(position), to: corners).map { h in
            [0, columns - 1, columns * rows - 1, columns * (rows - 1)].map { h.map(position($0)) }
        } ?? square
        return parameters(outline: outline, corners: corners, area: area, width: width, height: height)
    }

    /// The measures from the board's outline (up-left, up-right, down-right, down-left outer corners):
    /// skew from its angle at the up-right corner, size from its area (or `area` when given), position
    /// from the mean of `corners`.
    static func parameters(outline: [Point2], corners: [Point2], area given: Double?, width: Int, height: Int) -> ViewParameters {
        let (upLeft, upRight, downRight, downLeft) = (outline[0], outline[1], outline[2], outline[3])
        let a = (upRight.x - upLeft.x, upRight.y - upLeft.y), b = (downRight.x - upRight.x, downRight.y - upRight.y)
        let c = (downLeft.x - downRight.x, downLeft.y - downRight.y)
        let p = (b.0 + c.0, b.1 + c.1), q = (a.0 + b.0, a.1 + b.1)
        let area = given ?? abs(p.0 * q.1 - p.1 * q.0) / 2
        let ab = (upLeft.x - upRight.x, upLeft.y - upRight.y), cb = (downRight.x - upRight.x, downRight.y - upRight.y)
        let cosine = (ab.0 * cb.0 + ab.1 * cb.1) / ((ab.0 * ab.0 + ab.1 * ab.1).squareRoot() * (cb.0 * cb.0 + cb.1 * cb.1).squareRoot())
        let skew = min(1, 2 * abs(Double.pi / 2 - acos(max(-1, min(1, cosine)))))
        let border = area.squareRoot()
        let meanX = corners.map(\.x).reduce(0, +) / Double(corners.count), meanY = corners.map(\.y).reduce(0, +) / Double(corners.count)
        let x = min(1, max(0, (meanX - border / 2) / (Double(width) - border)))
        let y = min(1, max(0, (meanY - border / 2) / (Double(height) - border)))
        return ViewParameters(x: x, y: y, size: (area / Double(width * height)).squareRoot(), skew: skew)
    }

    /// Variance of the Laplacian inside the board's bounding box.
    static func sharpness(of gray: GrayImage, around corners: [Point2]) -> Double {
        let x0 = max(0, Int(corners.map(\.x).min()!)), x1 = min(gray.width - 1, Int(corners.map(\.x).max()!) + 1)
        let y0 = max(0, Int(corners.map(\.y).min()!)), y1 = min(gray.height - 1, Int(corners.map(\.y).max()!) + 1)
        guard x1 > x0 + 3, y1 > y0 + 3 else { return 0 }
        return gray.pixels.withUnsafeBufferPointer {
            cvb_sharpness($0.baseAddress! + y0 * gray.width + x0, Int32(x1 - x0 + 1), Int32(y1 - y0 + 1), Int32(gray.width))
        }
    }
}

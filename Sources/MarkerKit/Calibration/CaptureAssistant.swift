import CVBridge
import Foundation

/// The calibration capture assistant: watches frames, finds the board (on a reduced frame, refined at
/// full size), and keeps a view only when the board is found, held still, sharp, and new: its position,
/// size and skew differ enough from every kept view (the measures ROS's camera calibrator uses). Coverage
/// tells how much of the range of each measure the kept views span.
public struct CaptureAssistant {
    public struct Settings: Sendable {
        public var board: Checkerboard
        /// The board must stay put this long (seconds of the source's own time).
        public var holdSeconds = 0.5
        /// Mean corner motion between frames that still counts as still, as a fraction of the image width.
        public var maxMotion = 0.003
        /// Variance of the Laplacian over the board; below it a view is too blurred.
        public var minSharpness = 20.0
        /// Sum of differences in (x, y, size, skew) to the nearest kept view (ROS: 0.2).
        public var minNovelty = 0.2
        public var count = 30

        public init(board: Checkerboard) { self.board = board }
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
        public let parameters: ViewParameters
        public let sharpness: Double
    }

    public enum Verdict: Equatable, Sendable {
        case noBoard, moving, holding, blurred, notNew, kept
    }

    public let settings: Settings
    public private(set) var kept: [View] = []
    private var previous: [Point2]?
    /// The board's corners in the last frame considered (nil when it was not found).
    public var lastCorners: [Point2]? { previous }
    private var stillSince: Double?

    public init(settings: Settings) { self.settings = settings }

    /// Looks at one frame; keeps it when it passes every gate.
    public mutating func consider(_ sourced: SourcedFrame) throws -> Verdict {
        let gray = try Grayscale.image(from: sourced.frame)
        guard let corners = try findBoard(in: gray) else {
            previous = nil
            stillSince = nil
            return .noBoard
        }
        defer { previous = corners }
        let motion = previous.map { zip($0, corners).map { $0.distance(to: $1) }.reduce(0, +) / Double(corners.count) } ?? .infinity
        guard motion <= settings.maxMotion * Double(gray.width) else {
            stillSince = nil
            return .moving
        }
        let since = stillSince ?? sourced.time
        stillSince = since
        guard sourced.time - since >= settings.holdSeconds else { return .holding }
        let sharpness = Self.sharpness(of: gray, around: corners)
        guard sharpness >= settings.minSharpness else { return .blurred }
        let parameters = Self.parameters(of: corners, board: settings.board, width: gray.width, height: gray.height)
        guard kept.allSatisfy({ parameters.distance(to: $0.parameters) > settings.minNovelty }) else { return .notNew }
        kept.append(View(frame: sourced.frame, time: sourced.time, corners: corners, parameters: parameters, sharpness: sharpness))
        stillSince = nil // the next view needs its own still moment
        return .kept
    }

    /// How much of each measure's useful range (x, y, size, skew) the kept views span, 0-1.
    public var coverage: [Double] {
        guard let first = kept.first?.parameters.values else { return [0, 0, 0, 0] }
        var low = first, high = first
        for view in kept.dropFirst() {
            low = zip(low, view.parameters.values).map { min($0, $1) }
            high = zip(high, view.parameters.values).map { max($0, $1) }
        }
        low[3] = 0 // small size and no skew are not rewarded
        low[2] = min(low[2], high[2])
        let ranges = [0.7, 0.7, 0.4, 0.5]
        return (0..<4).map { min(1, (high[$0] - low[$0]) / ranges[$0]) }
    }

    public var isComplete: Bool {
        kept.count >= settings.count || (kept.count >= 10 && coverage.allSatisfy { $0 >= 1 })
    }

    /// The board's corners: found on a reduced frame, refined at full size.
    func findBoard(in gray: GrayImage) throws -> [Point2]? {
        try FastChessboardFinder(innerColumns: settings.board.innerColumns, innerRows: settings.board.innerRows).find(in: gray)
    }

    /// ROS camera_calibration's view measures from the board's outer inner-corners.
    public static func parameters(of corners: [Point2], board: Checkerboard, width: Int, height: Int) -> ViewParameters {
        let columns = board.innerColumns
        let upLeft = corners[0], upRight = corners[columns - 1], downRight = corners[corners.count - 1], downLeft = corners[corners.count - columns]
        let a = (upRight.x - upLeft.x, upRight.y - upLeft.y), b = (downRight.x - upRight.x, downRight.y - upRight.y)
        let c = (downLeft.x - downRight.x, downLeft.y - downRight.y)
        let p = (b.0 + c.0, b.1 + c.1), q = (a.0 + b.0, a.1 + b.1)
        let area = abs(p.0 * q.1 - p.1 * q.0) / 2
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

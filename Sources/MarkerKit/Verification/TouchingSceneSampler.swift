import Foundation

/// Sheets of markers that touch or nearly touch, the renders `--profile touching` makes: ArUco's marker
/// chessboard (markers on the black squares of a chessboard, so diagonal neighbours share a corner) and
/// tight grids (markers a fraction of a cell apart), through a webcam-like camera. The hard case is the
/// sharp, axis-aligned sheet, so four in ten sheets are face-on and four in ten turned by a multiple of
/// 90 degrees, and four in ten renders have no blur. The same seed gives the same scenes.
public struct TouchingSceneSampler: SceneSampler {
    public enum Layout: String, CaseIterable, Sendable {
        /// Markers on the black squares of a chessboard: diagonal neighbours share a corner.
        case markerChessboard = "marker-chessboard"
        /// Markers in rows and columns, `gapCells` of their cells apart.
        case tightGrid = "tight-grid"
    }

    public let camera: CameraCalibration
    public let width: Int
    public let height: Int
    public let dictionary: MarkerDictionary
    /// Side of a marker in the image, face-on (log-uniform).
    public var markerPixels: ClosedRange<Double> = 16...120
    /// Angle between the sheet's normal and the line of sight, when not face-on.
    public var tiltRange: ClosedRange<Double> = 0...40
    /// Paper between neighbours of a tight grid, in the markers' cells.
    public var gapCells: ClosedRange<Double> = 0.25...1
    /// Noise levels (gray levels), picked at random.
    public var noiseLevels: [Double] = [0, 0, 1, 2]
    /// Physical side of the markers (mm).
    public let side = 30.0
    private var random: SeededRandom
    private let usableIDs: [Int]

    public init(camera: CameraCalibration, width: Int, height: Int, seed: UInt64, dictionary: MarkerDictionary = .arucoOriginal) {
        self.camera = camera
        self.width = width
        self.height = height
        self.dictionary = dictionary
        random = SeededRandom(seed: seed)
        usableIDs = dictionary.usableIDs
    }

    /// How many markers a layout of `columns` x `rows` squares holds.
    public static func markerCount(_ layout: Layout, columns: Int, rows: Int) -> Int {
        layout == .tightGrid ? columns * rows : (columns * rows + 1) / 2
    }

    /// A sheet of `layout` at `pose` (its centre; x right, y up): markers of `side` mm with IDs `ids` row by
    /// row from the top left, `pitch` mm from one to the next (a marker chessboard's squares are `side`),
    /// on paper with a quiet zone of two cells round them, a little behind the print.
    public static func sheet(_ layout: Layout, columns: Int, rows: Int, pitch: Double, side: Double, ids: [Int], dictionary: MarkerDictionary,
                             pose: Pose3D) -> [Target] {
        var targets: [Target] = []
        for row in 0..<rows {
            for column in 0..<columns where layout == .tightGrid || (row + column) % 2 == 0 {
                let u = (Double(column) - Double(columns - 1) / 2) * pitch, v = (Double(rows - 1) / 2 - Double(row)) * pitch
                targets.append(Target(pattern: .marker(id: ids[targets.count], side: side, margin: 0, dictionary: dictionary.id),
                                      pose: pose.offset(by: (u, v, 0))))
            }
        }
        let border = 2 * side / Double(dictionary.markerSize + 2)
        targets.append(Target(pattern: .paper(width: Double(columns) * pitch + 2 * border, height: Double(rows) * pitch + 2 * border),
                              pose: pose.offset(by: (0, 0, -0.2))))
        return targets
    }

    private mutating func uniform(_ range: ClosedRange<Double>) -> Double { random.uniform(range) }
    private mutating func chance(_ p: Double) -> Bool { random.chance(p) }
    private mutating func pick(_ count: Int) -> Int { random.pick(count) }

    public mutating func nextScene() throws -> SampledScene {
        for _ in 0..<200 {
            if let scene = try sample() { return scene }
        }
        throw MarkerKitError.invalidArgument("no sheet of touching markers fits a \(width)x\(height) image: use a larger image")
    }

    private mutating func sample() throws -> SampledScene? {
        let layout = Layout.allCases[pick(Layout.allCases.count)]
        let pixels = exp(uniform(log(markerPixels.lowerBound)...log(markerPixels.upperBound)))
        let pitch = layout == .markerChessboard ? side : side * (1 + uniform(gapCells) / Double(dictionary.markerSize + 2))
        // As many rows and columns as fill most of the view, 2 to 8 by 2 to 6.
        let columns = max(2, min(8, Int(0.8 * Double(width) / (pixels * pitch / side)))),
            rows = max(2, min(6, Int(0.8 * Double(height) / (pixels * pitch / side))))
        let faceOn = chance(0.4), squareOn = chance(0.4)
        let spin = squareOn ? Double(pick(4)) * Double.pi / 2 : uniform(0...(2 * Double.pi))
        let tilt = faceOn ? 0 : uniform(tiltRange)
        let centre = (Double(width) * uniform(0.45...0.55), Double(height) * uniform(0.45...0.55))
        let sheet = try MarkerSceneSampler.pose(camera: camera, at: centre, depth: camera.fx * side / pixels, tiltDegrees: tilt,
                                                tiltAxis: uniform(0...(2 * Double.pi)), spin: spin)
        var ids: [Int] = []
        while ids.count < Self.markerCount(layout, columns: columns, rows: rows) {
            let id = usableIDs[pick(usableIDs.count)]
            if !ids.contains(id) { ids.append(id) }
        }
        let targets = Self.sheet(layout, columns: columns, rows: rows, pitch: pitch, side: side, ids: ids, dictionary: dictionary, pose: sheet)
        let truth = try SceneTruth.markers(of: Scene(camera: camera, width: width, height: height, targets: targets))
        let paper = Double(max(columns, rows)) * pixels * pitch / side
        guard truth.allSatisfy({ marker in
            marker.sidePixels >= 8 && marker.corners.allSatisfy { $0.x > 4 && $0.y > 4 && $0.x < Double(width) - 5 && $0.y < Double(height) - 5 }
        }), paper < 2 * Double(max(width, height)) else { return nil }
        var d = Degradations()
        d.black = uniform(10...60)
        d.white = uniform(170...245)
        d.background = uniform(40...200)
        d.texturedBackground = chance(0.5)
        d.gradient = uniform(0...0.3)
        d.gradientAngle = uniform(0...360)
        d.noise = noiseLevels[pick(noiseLevels.count)]
        d.blur = chance(0.4) ? 0 : uniform(0.3...1.5)
        let scene = Scene(camera: camera, width: width, height: height, targets: targets, degradations: d, seed: random.next())
        return SampledScene(scene: scene, markers: truth.map { SampledScene.Marker(truth: $0, tiltDegrees: tilt) })
    }
}

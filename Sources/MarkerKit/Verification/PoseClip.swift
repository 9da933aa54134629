import Foundation

/// A rendered clip of one marker whose pose is known in every frame, for `verify pose`: segments at
/// several sizes in the image (the marker's side face-on, in pixels), each a clip of its own. In each,
/// the marker starts facing the camera, tilts to 70 degrees, back through facing the camera to 70 degrees
/// the other way and back to the first hold's tilt while the tilt's axis turns and the marker drifts
/// across the image (the moving frames), then is held still at
/// small tilts, nearly facing the camera, where IPPE's two poses are hardest to tell apart and per-frame
/// poses flip (the still frames; the noise differs from frame to frame), moving smoothly from one hold
/// to the next. Every motion is continuous, as a hand's is. The same seed gives the same clip.
public struct PoseClip: Sendable {
    /// One frame: the scene to render, and what the breakdowns sort it by.
    public struct Frame: Sendable {
        public let scene: Scene
        /// The segment it belongs to (each segment is a clip of its own: histories start again).
        public let segment: Int
        /// The marker's side face-on (px), the segment's size.
        public let sizePixels: Double
        public let tiltDegrees: Double
        /// Held still (true) or moving.
        public let still: Bool
        /// The subject's true pose (mm): a marker's, a board's or a sheet's frame.
        public let pose: Pose3D
    }

    /// What the clip shows: one marker, or a ChArUco board (whose pose is found from its corners).
    public enum Subject: Sendable {
        case marker
        case charuco(CharucoBoard)
        /// A sheet of markers (a planar marker map in mm, as `generate markers` writes one).
        case sheet(MarkerMap)
        /// A cube with a marker on every face, each face white paper to its edges (a marker map in mm
        /// that is not planar; its pose is SQPnP's, one solution).
        case cube(MarkerMap)
    }

    public let camera: CameraCalibration
    public var subject = Subject.marker
    /// Physical side of the marker (mm).
    public static let side = 50.0
    /// The board `verify pose --target charuco` shows: 5x7 squares of 30 mm, 22 mm markers.
    public static let board = try! CharucoBoard(squaresX: 5, squaresY: 7, square: .mm(30), marker: .mm(22))
    /// The sheet `verify pose --target sheet` shows: six 40 mm markers in 2 rows of 3, 20 mm apart, in the
    /// frame `generate markers` gives a page (origin top-left, x right, y down, z into the page, mm).
    public static let sheet: MarkerMap = {
        let ids = MarkerDictionary.arucoOriginal.usableIDs
        let markers = (0..<6).map { k -> MarkerMap.Marker in
            let (x, y, h) = (20 + 60 * Double(k % 3), 20 + 60 * Double(k / 3), 20.0)
            return MarkerMap.Marker(id: ids[10 * (k + 1)], corners: [[x - h, y - h, 0], [x + h, y - h, 0], [x + h, y + h, 0], [x - h, y + h, 0]])
        }
        return MarkerMap(dictionary: .arucoOriginal, markers: markers, frame: "a sheet: origin top-left, x right, y down, z into the page")
    }()
    /// The cube `verify pose --target cube` shows: 60 mm, a 40 mm marker in the middle of each face, the map's
    /// frame at the cube's centre; each marker's z out of its face.
    public static let cubeEdge = 60.0
    public static let cube: MarkerMap = {
        let ids = MarkerDictionary.arucoOriginal.usableIDs, h = 20.0, e = cubeEdge / 2
        // Each face: its outward normal, and the marker's x and y along it (x cross y = the normal).
        let faces: [(SIMD3<Double>, SIMD3<Double>, SIMD3<Double>)] = [
            ([0, 0, 1], [1, 0, 0], [0, 1, 0]), ([0, 0, -1], [-1, 0, 0], [0, 1, 0]), ([1, 0, 0], [0, 1, 0], [0, 0, 1]),
            ([-1, 0, 0], [0, -1, 0], [0, 0, 1]), ([0, 1, 0], [0, 0, 1], [1, 0, 0]), ([0, -1, 0], [0, 0, -1], [1, 0, 0]),
        ]
        let markers = faces.enumerated().map { k, face -> MarkerMap.Marker in
            let (n, x, y) = face, c = e * n
            let corners = [c - h * x + h * y, c + h * x + h * y, c + h * x - h * y, c - h * x - h * y]
            return MarkerMap.Marker(id: ids[10 * (k + 7)], corners: corners.map { [$0.x, $0.y, $0.z] })
        }
        return MarkerMap(dictionary: .arucoOriginal, markers: markers, frame: "a 60 mm cube: origin at its centre")
    }()
    /// The sizes of a board's segments (its longer side face-on, px).
    public static let boardSizes: [Double] = [150, 250, 400]
    /// The sizes of the cube's segments (its edge face-on, px).
    public static let cubeSizes: [Double] = [80, 150, 250]

    /// What the clip shows, for the table's heading.
    public var summary: String {
        switch subject {
        case .marker: "one marker (\(Self.side.formatted()) mm)"
        case .charuco(let board): "a ChArUco board (\(board.summary))"
        case .sheet(let map): "a sheet of \(map.markers.count) markers"
        case .cube: "a \(Self.cubeEdge.formatted()) mm cube with a marker on each face"
        }
    }

    /// The subject's longer side (mm): what a segment's size in pixels measures.
    public var physicalSize: Double {
        switch subject {
        case .marker: return Self.side
        case .charuco(let board): return max(board.width.millimetres, board.height.millimetres)
        case .cube: return Self.cubeEdge
        case .sheet(let map):
            let points = map.markers.flatMap(\.corners)
            return max(points.map { $0[0] }.max()! - points.map { $0[0] }.min()!, points.map { $0[1] }.max()! - points.map { $0[1] }.min()!)
        }
    }

    /// The map's frame placed where the clip's pose puts the subject (its middle at the pose's centre, z
    /// into the print), and each of its markers there: one target per marker, with paper to the edges of
    /// a `face` that size (a cube's), else a quiet zone of 1.5 cells.
    static func targets(of map: MarkerMap, at pose: Pose3D, face: Double? = nil) -> (frame: Pose3D, targets: [Target]) {
        let points = map.markers.flatMap { $0.corners.map { SIMD3($0[0], $0[1], $0[2]) } }
        let middle = (points.reduce(SIMD3<Double>(), +)) / Double(points.count)
        let frame = Self.frame(of: pose, middle: (middle.x, middle.y))
        let r = frame.rotation
        func turned(_ v: SIMD3<Double>) -> SIMD3<Double> {
            SIMD3(r[0] * v.x + r[1] * v.y + r[2] * v.z, r[3] * v.x + r[4] * v.y + r[5] * v.z, r[6] * v.x + r[7] * v.y + r[8] * v.z)
        }
        let targets = map.markers.map { marker -> Target in
            let c = marker.corners.map { SIMD3($0[0], $0[1], $0[2]) }
            func unit(_ v: SIMD3<Double>) -> SIMD3<Double> { v / (v * v).sum().squareRoot() }
            let side = marker.side
            let x = unit(c[1] - c[0]), y0 = unit(c[0] - c[3]), z = unit(cross(x, y0)), y = cross(z, x)
            // The marker's frame in the camera: its axes turned with the map's, its centre placed.
            let axes = [turned(x), turned(y), turned(z)]
            let m = (0..<3).flatMap { i in (0..<3).map { j in axes[j][i] } }
            let centre = turned((c[0] + c[1] + c[2] + c[3]) / 4)
            return Target(pattern: .marker(id: marker.id, side: side, margin: face.map { ($0 - side) / 2 } ?? side / 7 * 1.5),
                          pose: Pose3D(rvec: Pose3D.rvec(from: m), tvec: (0..<3).map { centre[$0] + frame.tvec[$0] }))
        }
        return (frame, targets)
    }

    /// The frame of a board or sheet (z into the print: the marker frame turned half a circle about x)
    /// whose point `middle` (its own coordinates) is where `pose` puts a marker's centre.
    static func frame(of pose: Pose3D, middle: (Double, Double)) -> Pose3D {
        let rvec = Pose3D.compose([Double.pi, 0, 0], then: pose.rvec)
        let r = Pose3D(rvec: rvec, tvec: [0, 0, 0]).rotation
        return Pose3D(rvec: rvec, tvec: (0..<3).map { pose.tvec[$0] - r[3 * $0] * middle.0 - r[3 * $0 + 1] * middle.1 })
    }
    /// The segments' sizes (px).
    public var sizes: [Double] = [20, 40, 80, 160, 280]
    /// Frames of each segment's sweep, of each of its holds, and of the move from one hold to the next.
    public var sweepFrames = 150, holdFrames = 40, moveFrames = 20
    /// The tilts the marker is held at (degrees), in order.
    public var holdTilts: [Double] = [15, 6]
    /// The highest tilt of the sweep (degrees).
    public static let maximumTilt = 70.0
    public var degradations: Degradations
    public let seed: UInt64
    /// The marker (not 1023 nor a pair one cell apart when turned: `MarkerDictionary.usableIDs`).
    public var id = 7

    public init(camera: CameraCalibration, seed: UInt64, degradations: Degradations) {
        self.camera = camera
        self.seed = seed
        self.degradations = degradations
    }

    /// Sizes as a user gives them ("20,40,80"): each 8-2000 px (`RenderLimits.poseSize`), at most 100.
    public static func sizes(_ text: String, option: String) throws -> [Double] {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        guard (1...100).contains(parts.count) else { throw MarkerKitError.invalidArgument("\(option) takes 1-100 sizes in pixels, e.g. 20,40,80") }
        return try parts.map { part in
            guard let value = Double(part), value.isFinite else {
                throw MarkerKitError.invalidArgument("\(option): '\(part)' is not a size in pixels (e.g. 20,40,80)")
            }
            return try InputRange.check(value, in: RenderLimits.poseSize, option)
        }
    }

    /// The largest size that fits the image whole as the marker turns (its diagonal and paper inside it).
    public var largestSize: Double { (Double(min(camera.imageWidth, camera.imageHeight)) / 1.6).rounded(.down) }

    /// Refuses sizes the image cannot hold.
    public func checkSizes() throws {
        if let size = sizes.first(where: { $0 > largestSize }) {
            throw MarkerKitError.invalidArgument("a \(size.formatted()) px marker does not fit a \(camera.imageWidth)x\(camera.imageHeight) image as it turns: sizes up to \(Int(largestSize)) px")
        }
    }

    /// Frames per segment, and in all.
    public var segmentFrames: Int { sweepFrames + holdTilts.count * (holdFrames + moveFrames) - moveFrames }
    public var frameCount: Int { sizes.count * segmentFrames }

    /// Frame `index` (0 ..< frameCount) of the clip.
    public func frame(_ index: Int) throws -> Frame {
        let segment = index / segmentFrames, k = index % segmentFrames
        let size = sizes[segment]
        // Each segment's own spin and start of the tilt axis, from the seed.
        var random = SeededRandom(seed: seed &+ UInt64(segment) &* 0x9E37_79B9)
        let spin = random.uniform(0...(2 * Double.pi)), axis0 = random.uniform(0...(2 * Double.pi))
        let phase = random.uniform(0...(2 * Double.pi))
        // Where the frame is: the sweep, a hold, or a move to the next hold (u from 0 to 1 through it).
        let t = Double(min(k, sweepFrames))
        var still = false
        // The tilt signed along the axis: through the sweep it goes 0, 70, 0 (turning through facing the
        // camera, where the two poses meet), -70, then to the first hold's.
        let signed: Double
        if k < sweepFrames {
            let u = Double(k) / Double(sweepFrames), top = Self.maximumTilt, end = holdTilts[0]
            signed = u < 0.75 ? top * sin(2 * Double.pi * u) : -end - (top - end) * (1 + cos(Double.pi * (u - 0.75) / 0.25)) / 2
        } else {
            let r = k - sweepFrames, hold = r / (holdFrames + moveFrames), within = r % (holdFrames + moveFrames)
            still = within < holdFrames
            let u = still ? 0 : Double(within - holdFrames + 1) / Double(moveFrames)
            signed = -holdTilts[hold] - (1 - cos(Double.pi * u)) / 2 * (holdTilts[min(hold + 1, holdTilts.count - 1)] - holdTilts[hold])
        }
        let tilt = abs(signed)
        // The tilt's axis turns half a circle through the sweep and stays; a negative tilt is about the
        // axis turned half a circle.
        let axis = axis0 + Double.pi * t / Double(sweepFrames) + (signed < 0 ? Double.pi : 0)
        // Drift: the centre moves on an ellipse within the image, as far as the marker's size allows.
        let w = Double(camera.imageWidth), h = Double(camera.imageHeight)
        let reach = 0.8 * size + 6
        let ax = max(0, w / 2 - reach) * 0.5, ay = max(0, h / 2 - reach) * 0.5
        let angle = phase + 2 * Double.pi * t / Double(sweepFrames)
        let centre = (w / 2 + ax * cos(angle), h / 2 + ay * sin(angle))
        let depth = camera.fx * physicalSize / size
        let pose = try MarkerSceneSampler.pose(camera: camera, at: centre, depth: depth, tiltDegrees: tilt, tiltAxis: axis, spin: spin)
        let targets: [Target], subjectPose: Pose3D
        switch subject {
        case .marker:
            (targets, subjectPose) = ([Target(pattern: .marker(id: id, side: Self.side, margin: Self.side / 7 * 1.5), pose: pose)], pose)
        case .charuco(let board):
            // The board's frame: its origin at the top-left outer corner, the board's middle at the centre.
            subjectPose = Self.frame(of: pose, middle: (board.width.millimetres / 2, board.height.millimetres / 2))
            targets = [Target(pattern: .charuco(board), pose: subjectPose)]
        case .sheet(let map):
            (subjectPose, targets) = Self.targets(of: map, at: pose)
        case .cube(let map):
            (subjectPose, targets) = Self.targets(of: map, at: pose, face: Self.cubeEdge)
        }
        let scene = Scene(camera: camera, width: camera.imageWidth, height: camera.imageHeight, targets: targets,
                          degradations: degradations, seed: seed &+ UInt64(index) &* 7919)
        return Frame(scene: scene, segment: segment, sizePixels: size, tiltDegrees: tilt, still: still, pose: subjectPose)
    }
}

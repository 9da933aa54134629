import CVBridge
import Foundation

/// Phone photos of printed markers, the renders `--profile phone` makes: 8 and 12 MP,
/// portrait and landscape, through a phone's wide lens (`BuiltInCamera.phone`); several markers of 20 to
/// 250 px, each on a card (stickers on objects) or all on one sheet filling the view, with print beside
/// many of them closer than a marker's usual quiet zone (gray patches, text, a second marker); and what a
/// phone adds: optical blur, motion blur, sensor noise that grows in the dark, vignetting, a lighting
/// gradient, shadows, JPEG. The same seed gives the same photos.
public struct PhoneSceneSampler: SceneSampler {
    public static let sensorSizes: [(width: Int, height: Int)] = [(3024, 4032), (4032, 3024), (2448, 3264), (3264, 2448)]

    /// Image sizes, picked at random.
    public var sizes = PhoneSceneSampler.sensorSizes
    /// Side of the markers in the image, face-on (log-uniform).
    public var markerPixels: ClosedRange<Double> = 20...250
    /// Angle between a marker's normal and the line of sight.
    public var tiltRange: ClosedRange<Double> = 0...60
    /// Markers (each with the print beside it) per photo; a second marker beside one adds to these.
    public var groups: ClosedRange<Int> = 3...6
    /// Chances of nothing, gray patches, text and a second marker beside a marker.
    public var printWeights = [0.35, 0.25, 0.25, 0.15]
    /// Paper between a marker's black border and the print beside it, in cells (uniform).
    public var quietZones: ClosedRange<Double> = 0.4...1.5
    /// Optical blur (Gaussian standard deviation, px, log-uniform).
    public var blurRange: ClosedRange<Double> = 1...4
    /// No blur, motion blur, noise, JPEG, vignetting or shadows (lighting and print as sampled): what
    /// the corner stage can do by itself. The same seed gives the same scenes as without.
    public var clean = false
    public let dictionary: MarkerDictionary
    private var random: SeededRandom
    private let usableIDs: [Int]

    public init(seed: UInt64, dictionary: MarkerDictionary = .arucoOriginal) {
        self.dictionary = dictionary
        random = SeededRandom(seed: seed)
        usableIDs = dictionary.usableIDs
    }

    /// A marker and the print beside it, in the marker's frame (mm): what goes on one card.
    struct Group {
        var items: [(pattern: TargetPattern, u: Double, v: Double)] = []
        /// For each marker among the items, in order: what is beside it and how close.
        var markers: [(beside: NearbyPrint?, quietZone: Double?)] = []
        var rects: [(minU: Double, maxU: Double, minV: Double, maxV: Double)] = []

        /// Adds an item centred at (u, v) unless it would overlap one already there (print on two sides
        /// can meet at a corner).
        @discardableResult
        mutating func add(_ pattern: TargetPattern, u: Double, v: Double, halfWidth: Double, halfHeight: Double) -> Bool {
            let rect = (minU: u - halfWidth, maxU: u + halfWidth, minV: v - halfHeight, maxV: v + halfHeight)
            let gap = 1e-6
            guard !rects.contains(where: { rect.minU < $0.maxU - gap && $0.minU < rect.maxU - gap && rect.minV < $0.maxV - gap && $0.minV < rect.maxV - gap })
            else { return false }
            rects.append(rect)
            items.append((pattern, u, v))
            return true
        }

        var extent: (minU: Double, maxU: Double, minV: Double, maxV: Double) {
            (rects.map(\.minU).min()!, rects.map(\.maxU).max()!, rects.map(\.minV).min()!, rects.map(\.maxV).max()!)
        }
    }

    public mutating func nextScene() throws -> SampledScene {
        for _ in 0..<50 {
            if let scene = try sample() { return scene }
        }
        throw MarkerKitError.invalidArgument("no phone scene fits: the marker sizes or groups asked for are too large for the photo")
    }

    private mutating func uniform(_ range: ClosedRange<Double>) -> Double { random.uniform(range) }
    private mutating func logUniform(_ range: ClosedRange<Double>) -> Double { exp(random.uniform(log(range.lowerBound)...log(range.upperBound))) }
    private mutating func pick(_ count: Int) -> Int { min(count - 1, Int(random.unit() * Double(count))) }

    private mutating func sample() throws -> SampledScene? {
        let (width, height) = sizes[pick(sizes.count)]
        let camera = BuiltInCamera.phone(width: width, height: height)
        let onSheet = random.unit() < 0.5
        let (targets, infos) = try placeGroups(camera: camera, width: width, height: height, onSheet: onSheet)
        guard !infos.isEmpty else { return nil }
        let truth = try SceneTruth.markers(of: Scene(camera: camera, width: width, height: height, targets: targets))
        let d = degradations(onSheet: onSheet, truth: truth, width: width, height: height)
        let scene = Scene(camera: camera, width: width, height: height, targets: targets, degradations: d, seed: random.next())
        let markers = zip(truth, infos).map { marker, info in
            SampledScene.Marker(truth: marker, tiltDegrees: Self.tilt(marker.pose), beside: info.beside, quietZone: info.quietZone)
        }
        return SampledScene(scene: scene, markers: markers)
    }

    /// The groups of markers (with what is printed beside them) placed in the view: on one sheet filling
    /// it (its paper is the background), or on cards each at its own angle; each group tried 30 times
    /// for a place in view, clear of the others, facing the camera, every marker 6 px or more.
    private mutating func placeGroups(camera: CameraCalibration, width: Int, height: Int, onSheet: Bool) throws
        -> (targets: [Target], infos: [(beside: NearbyPrint?, quietZone: Double?)]) {
        var used: Set<Int> = []
        var targets: [Target] = []
        var infos: [(beside: NearbyPrint?, quietZone: Double?)] = []
        var boxes: [(Double, Double, Double, Double)] = []
        let sheet = try MarkerSceneSampler.pose(camera: camera, at: (Double(width) * uniform(0.4...0.6), Double(height) * uniform(0.4...0.6)),
                                                depth: 400, tiltDegrees: uniform(tiltRange), tiltAxis: uniform(0...(2 * Double.pi)), spin: 0)
        let wanted = groups.lowerBound + pick(groups.count)
        for _ in 0..<wanted {
            for _ in 0..<30 {
                let pixels = logUniform(markerPixels)
                let at = (uniform(0...Double(width)), uniform(0...Double(height)))
                let spin = uniform(0...(2 * Double.pi))
                let pose: Pose3D, side: Double
                if onSheet {
                    guard let point = try Self.ray(camera, at).flatMap({ Self.meet($0, plane: sheet) }) else { continue }
                    side = pixels * point[2] / camera.fx
                    pose = Pose3D(rvec: Pose3D.compose([0, 0, spin], then: sheet.rvec), tvec: point)
                } else {
                    side = 40
                    pose = try MarkerSceneSampler.pose(camera: camera, at: at, depth: camera.fx * side / pixels, tiltDegrees: uniform(tiltRange),
                                                       tiltAxis: uniform(0...(2 * Double.pi)), spin: spin)
                }
                let group = makeGroup(side: side, used: used)
                // The card: paper one to two and a half cells beyond the print (the quiet zone where there
                // is none), a little behind it.
                let e = group.extent, border = side / 7 * uniform(1...2.5)
                let card = (minU: e.minU - border, maxU: e.maxU + border, minV: e.minV - border, maxV: e.maxV + border)
                let corners = try SceneTruth.project([(card.minU, card.minV, 0), (card.maxU, card.minV, 0), (card.maxU, card.maxV, 0), (card.minU, card.maxV, 0)],
                                                     pose: pose, camera: camera)
                let box = (corners.map(\.x).min()! - 3, corners.map(\.y).min()! - 3, corners.map(\.x).max()! + 3, corners.map(\.y).max()! + 3)
                guard box.0 > 4, box.1 > 4, box.2 < Double(width) - 5, box.3 < Double(height) - 5,
                      !boxes.contains(where: { box.0 < $0.2 && $0.0 < box.2 && box.1 < $0.3 && $0.1 < box.3 }),
                      Self.facesCamera(pose) else { continue }
                var groupTargets = group.items.map { Target(pattern: $0.pattern, pose: pose.offset(by: ($0.u, $0.v, 0))) }
                let truth = try SceneTruth.markers(of: Scene(camera: camera, width: width, height: height, targets: groupTargets))
                guard truth.allSatisfy({ $0.sidePixels >= 6 }) else { continue }
                if !onSheet {
                    groupTargets.append(Target(pattern: .paper(width: card.maxU - card.minU, height: card.maxV - card.minV),
                                               pose: pose.offset(by: ((card.minU + card.maxU) / 2, (card.minV + card.maxV) / 2, -0.2))))
                }
                for case .marker(let id, _, _, _) in group.items.map(\.pattern) { used.insert(id) }
                targets += groupTargets
                infos += group.markers
                boxes.append(box)
                break
            }
        }
        return (targets, infos)
    }

    /// The picture's conditions: print contrast, background, lighting (gradient, vignetting, a shadow
    /// near a marker four times in ten), blur, motion blur, sensor noise and JPEG; none but the print's
    /// and the background's when `clean`.
    private mutating func degradations(onSheet: Bool, truth: [SceneTruth.Marker], width: Int, height: Int) -> Degradations {
        var d = Degradations()
        d.black = uniform(15...60)
        d.white = uniform(170...245)
        d.background = onSheet ? d.white : uniform(40...200)
        d.texturedBackground = !onSheet && random.unit() < 0.6
        d.gradient = uniform(0...0.4)
        d.gradientAngle = uniform(0...360)
        d.vignetting = uniform(0...0.4)
        if random.unit() < 0.4 {
            // A shadow whose edge crosses a marker, or passes near it.
            let marker = truth[pick(truth.count)]
            let centre = Point2(x: marker.corners.map(\.x).reduce(0, +) / 4, y: marker.corners.map(\.y).reduce(0, +) / 4)
            let edge = Point2(x: centre.x + marker.sidePixels * uniform(-0.5...0.5), y: centre.y + marker.sidePixels * uniform(-0.5...0.5))
            let a = uniform(0...(2 * Double.pi)), far = 2 * Double(width + height)
            let (nx, ny, tx, ty) = (cos(a), sin(a), -sin(a), cos(a))
            d.shadows = [Shadow(polygon: [Point2(x: edge.x + far * tx, y: edge.y + far * ty), Point2(x: edge.x - far * tx, y: edge.y - far * ty),
                                          Point2(x: edge.x - far * (tx + nx), y: edge.y - far * (ty + ny)),
                                          Point2(x: edge.x + far * (tx - nx), y: edge.y + far * (ty - ny))],
                                darkness: uniform(0.2...0.6), softness: logUniform(2...40))]
        }
        d.blur = logUniform(blurRange)
        if random.unit() < 0.5 {
            d.motionBlur = logUniform(1...8)
            d.motionBlurAngle = uniform(0...180)
        }
        d.sensorNoise = SensorNoise(electrons: logUniform(300...20_000), readNoise: uniform(2...5))
        d.jpegQuality = Int(uniform(60...95.999))
        if clean {
            (d.blur, d.motionBlur, d.sensorNoise, d.jpegQuality, d.vignetting, d.shadows) = (0, 0, nil, nil, 0, [])
        }
        return d
    }

    /// A marker of `side` mm at the origin and what is printed beside it.
    private mutating func makeGroup(side: Double, used: Set<Int>) -> Group {
        var group = Group()
        var taken = used
        func id() -> Int {
            var id = usableIDs[pick(usableIDs.count)]
            while taken.contains(id) { id = usableIDs[pick(usableIDs.count)] }
            taken.insert(id)
            return id
        }
        let cell = side / 7, h = side / 2
        let choice = Self.choose(random.unit(), weights: printWeights)
        let kind: NearbyPrint? = choice == 0 ? nil : NearbyPrint.allCases[choice - 1]
        let quiet = uniform(quietZones)
        group.add(.marker(id: id(), side: side, margin: 0, dictionary: dictionary.id), u: 0, v: 0, halfWidth: h, halfHeight: h)
        group.markers.append((kind, kind == nil ? nil : quiet))
        guard let kind else { return group }
        let gap = quiet * cell
        // Sides: 0 right, 1 top, 2 left, 3 bottom; one or two of them, a second marker on one.
        var sides = [0, 1, 2, 3]
        for i in stride(from: 3, to: 0, by: -1) { sides.swapAt(i, pick(i + 1)) }
        let count = kind == .marker || random.unit() < 0.5 ? 1 : 2
        for s in sides.prefix(count) {
            // The item's size across the side and along it, and the pattern.
            let across: Double, along: Double, pattern: TargetPattern
            var near = h + gap
            switch kind {
            case .patches:
                let patch = cell * uniform(1.2...3), between = min(patch * uniform(0.08...0.2), 0.8 * gap)
                let deep = 1 + pick(3), long = max(1, Int(side * uniform(1...2.5) / (patch + between)))
                let (columns, rows) = s % 2 == 0 ? (deep, long) : (long, deep)
                let levels = (0..<(columns * rows)).map { _ in uniform(0.03...0.95) }
                pattern = .patches(columns: columns, rows: rows, patch: patch, gap: between, levels: levels)
                across = Double(deep) * (patch + between) + between
                along = Double(long) * (patch + between) + between
                near -= between // the first patch `gap` from the border
            case .text:
                let lines = (0...pick(3)).map { _ in
                    String((0..<(2 + pick(9))).map { _ in random.unit() < 0.15 ? " " : DotFont.characters[pick(DotFont.characters.count)] })
                }
                let glyph = cell * uniform(0.8...2)
                let dots = DotFont.dots(lines)
                pattern = .text(lines: lines, height: glyph, ink: uniform(0...0.25))
                let (w, tall) = (Double(dots.columns) * glyph / 7, Double(dots.rows) * glyph / 7)
                (across, along) = s % 2 == 0 ? (w, tall) : (tall, w)
            case .marker:
                let other = side * uniform(0.6...1.2)
                pattern = .marker(id: id(), side: other, margin: 0, dictionary: dictionary.id)
                (across, along) = (other, other)
            }
            let shift = uniform(-0.5...0.5) * max(0, along - side) + uniform(-0.15...0.15) * side
            let centre = near + across / 2
            let (u, v) = [(centre, shift), (shift, centre), (-centre, shift), (shift, -centre)][s]
            let (hw, hh) = s % 2 == 0 ? (across / 2, along / 2) : (along / 2, across / 2)
            if group.add(pattern, u: u, v: v, halfWidth: hw, halfHeight: hh), kind == .marker {
                group.markers.append((.marker, gap / (across / 7)))
            }
        }
        return group
    }

    /// Index of the weight `x` (0-1) falls in.
    static func choose(_ x: Double, weights: [Double]) -> Int {
        var sum = 0.0, total = weights.reduce(0, +)
        for (i, w) in weights.enumerated() {
            sum += w / total
            if x < sum { return i }
        }
        return weights.count - 1
    }

    /// The ray (x, y, 1) through a pixel.
    static func ray(_ camera: CameraCalibration, _ pixel: (Double, Double)) throws -> [Double]? {
        var ray = [0.0, 0.0]
        try Bridge.check(cvb_undistort_points([pixel.0, pixel.1], 1, camera.cameraMatrix, camera.distortion, Int32(camera.distortion.count),
                                              camera.bridgeModel, &ray))
        return [ray[0], ray[1], 1]
    }

    /// Where a ray from the camera meets a target's plane, if in front.
    static func meet(_ ray: [Double], plane: Pose3D) -> [Double]? {
        let r = plane.rotation, t = plane.tvec
        let n = [r[2], r[5], r[8]]
        let along = n[0] * ray[0] + n[1] * ray[1] + n[2] * ray[2]
        guard abs(along) > 1e-9 else { return nil }
        let k = (n[0] * t[0] + n[1] * t[1] + n[2] * t[2]) / along
        return k > 0 ? ray.map { $0 * k } : nil
    }

    /// Whether the printed side (+z of the marker frame) is towards the camera.
    static func facesCamera(_ pose: Pose3D) -> Bool {
        let r = pose.rotation, t = pose.tvec
        return r[2] * t[0] + r[5] * t[1] + r[8] * t[2] < 0
    }

    /// Angle between a marker's normal and the line of sight to its centre, degrees.
    static func tilt(_ pose: Pose3D) -> Double {
        let r = pose.rotation, t = pose.tvec
        let distance = (t[0] * t[0] + t[1] * t[1] + t[2] * t[2]).squareRoot()
        let cosine = abs(r[2] * t[0] + r[5] * t[1] + r[8] * t[2]) / distance
        return acos(min(1, cosine)) * 180 / Double.pi
    }
}

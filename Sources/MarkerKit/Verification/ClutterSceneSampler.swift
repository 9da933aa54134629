import Foundation

/// Markers on cards in a cluttered room, the renders `--profile cluttered` makes and the bench's cluttered
/// cases: a textured background, often a printed poster behind (a page of text or a mosaic of gray tiles),
/// and things beside the markers that make contours of their own: pages of text, grids of gray and black
/// squares, square codes of no dictionary, lone dark squares. Nothing but the markers is in the truth;
/// nothing covers a marker's card. Webcam conditions: noise, a little blur, a lighting gradient, often
/// JPEG. The same seed gives the same scenes.
public struct ClutterSceneSampler: SceneSampler {
    /// What stands beside the markers.
    public enum Clutter: CaseIterable, Sendable {
        case textPage, squares, foreignCode, darkSquare
    }

    public let camera: CameraCalibration
    public let width: Int
    public let height: Int
    public let dictionary: MarkerDictionary
    /// Markers per frame.
    public var markerCount: ClosedRange<Int> = 3...30
    /// Things of clutter per frame, besides the background.
    public var clutterCount: ClosedRange<Int> = 8...24
    /// Side of a marker in the image, face-on (log-uniform from the lower bound up to what its share of
    /// the frame allows).
    public var markerPixels: ClosedRange<Double> = 20...160
    /// Angle between a card's normal and the line of sight.
    public var tiltRange: ClosedRange<Double> = 0...50
    /// Chance of a printed poster behind everything.
    public var posterChance = 0.5
    /// Chance of JPEG (a webcam's MJPEG), quality 70-95.
    public var jpegChance = 0.3
    /// Physical side of the markers (mm).
    public let side = 40.0
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

    private mutating func uniform(_ range: ClosedRange<Double>) -> Double { random.uniform(range) }
    private mutating func logUniform(_ range: ClosedRange<Double>) -> Double { random.logUniform(range) }
    private mutating func chance(_ p: Double) -> Bool { random.chance(p) }
    private mutating func pick(_ count: Int) -> Int { random.pick(count) }
    private mutating func count(_ range: ClosedRange<Int>) -> Int { range.lowerBound + random.pick(range.count) }

    public mutating func nextScene() throws -> SampledScene {
        for _ in 0..<20 {
            if let scene = try sample() { return scene }
        }
        throw MarkerKitError.invalidArgument("no cluttered scene fits a \(width)x\(height) image: use a larger image or fewer markers")
    }

    /// A box in the image (min x, min y, max x, max y).
    private typealias Box = (Double, Double, Double, Double)

    private mutating func sample() throws -> SampledScene? {
        let wanted = min(count(markerCount), usableIDs.count)
        // Markers share the frame: the largest fits about half its share of the area.
        let share = (Double(width * height) / Double(max(1, wanted))).squareRoot()
        let largest = max(markerPixels.lowerBound * 1.2, min(markerPixels.upperBound, share * 0.5))
        var targets: [Target] = [], tilts: [Double] = [], cards: [Box] = []
        var used: Set<Int> = []
        for _ in 0..<(wanted * 40) where tilts.count < wanted {
            let pixels = logUniform(markerPixels.lowerBound...largest)
            let tilt = uniform(tiltRange)
            let pose = try MarkerSceneSampler.pose(camera: camera, at: (uniform(0...Double(width)), uniform(0...Double(height))),
                                                   depth: camera.fx * side / pixels, tiltDegrees: tilt,
                                                   tiltAxis: uniform(0...(2 * Double.pi)), spin: uniform(0...(2 * Double.pi)))
            let card = side * (1 + 2 * uniform(1.5...3) / Double(dictionary.markerSize + 2))
            guard let box = try box(of: card, card, at: pose, inside: true), !cards.contains(where: { overlap($0, box) }) else { continue }
            var id = usableIDs[pick(usableIDs.count)]
            while used.contains(id) { id = usableIDs[pick(usableIDs.count)] }
            let marker = Target(pattern: .marker(id: id, side: side, margin: 0, dictionary: dictionary.id), pose: pose)
            guard let truth = try SceneTruth.markers(of: Scene(camera: camera, width: width, height: height, targets: [marker])).first,
                  truth.sidePixels >= 8 else { continue }
            used.insert(id)
            targets += [marker, Target(pattern: .paper(width: card, height: card), pose: pose.offset(by: (0, 0, -0.2)))]
            tilts.append(tilt)
            cards.append(box)
        }
        guard tilts.count == wanted else { return nil }
        let things = count(clutterCount)
        var placed = 0
        for _ in 0..<(things * 20) where placed < things {
            let kind = Clutter.allCases[pick(Clutter.allCases.count)]
            let pixels = logUniform(markerPixels.lowerBound...max(markerPixels.lowerBound * 1.2, share * 0.6))
            let pose = try MarkerSceneSampler.pose(camera: camera, at: (uniform(0...Double(width)), uniform(0...Double(height))),
                                                   depth: camera.fx * side / pixels, tiltDegrees: uniform(tiltRange),
                                                   tiltAxis: uniform(0...(2 * Double.pi)), spin: uniform(0...(2 * Double.pi)))
            let made = clutter(kind)
            guard let box = try box(of: made.width, made.height, at: pose, inside: false), !cards.contains(where: { overlap($0, box) }) else { continue }
            // Each pattern a little behind the one before it (text in front of its page).
            targets += made.patterns.enumerated().map { Target(pattern: $1, pose: pose.offset(by: (0, 0, -0.2 * Double($0)))) }
            placed += 1
        }
        let posterAt = try MarkerSceneSampler.pose(camera: camera, at: (Double(width) / 2, Double(height) / 2),
                                                   depth: camera.fx * side / markerPixels.lowerBound * 1.5, tiltDegrees: uniform(0...25),
                                                   tiltAxis: uniform(0...(2 * Double.pi)), spin: uniform(-0.2...0.2))
        if chance(posterChance) { targets += poster(at: posterAt) }
        var d = Degradations()
        d.black = uniform(15...50)
        d.white = uniform(170...240)
        d.background = uniform(60...180)
        d.texturedBackground = true
        d.gradient = uniform(0...0.3)
        d.gradientAngle = uniform(0...360)
        d.noise = uniform(1...3)
        d.blur = uniform(0.3...1)
        d.jpegQuality = chance(jpegChance) ? Int(uniform(70...95.999)) : nil
        let scene = Scene(camera: camera, width: width, height: height, targets: targets, degradations: d, seed: random.next())
        // `SceneTruth.markers(of:)` lists the markers in the order of the targets, which is the order sampled.
        let truth = try SceneTruth.markers(of: scene)
        return SampledScene(scene: scene, markers: zip(truth, tilts).map { SampledScene.Marker(truth: $0, tiltDegrees: $1) })
    }

    /// The image box of a `w` x `h` mm rectangle centred at `pose`, 3 px larger; nil when it does not lie
    /// in the frame (`inside`) or does not touch it, or faces away.
    private func box(of w: Double, _ h: Double, at pose: Pose3D, inside: Bool) throws -> Box? {
        guard PhoneSceneSampler.facesCamera(pose) else { return nil }
        let corners = try SceneTruth.project([(-w / 2, -h / 2, 0), (w / 2, -h / 2, 0), (w / 2, h / 2, 0), (-w / 2, h / 2, 0)], pose: pose, camera: camera)
        let b = (corners.map(\.x).min()! - 3, corners.map(\.y).min()! - 3, corners.map(\.x).max()! + 3, corners.map(\.y).max()! + 3)
        if inside { return b.0 > 4 && b.1 > 4 && b.2 < Double(width) - 5 && b.3 < Double(height) - 5 ? b : nil }
        return b.2 > 0 && b.3 > 0 && b.0 < Double(width) && b.1 < Double(height) ? b : nil
    }

    private func overlap(_ a: Box, _ b: Box) -> Bool { a.0 < b.2 && b.0 < a.2 && a.1 < b.3 && b.1 < a.3 }

    /// One thing of clutter as patterns centred at the origin (front first), and its size in mm.
    private mutating func clutter(_ kind: Clutter) -> (patterns: [TargetPattern], width: Double, height: Double) {
        let cell = side / Double(dictionary.markerSize + 2)
        switch kind {
        case .textPage:
            let glyph = cell * uniform(0.6...1.6)
            let lines = (0..<(2 + pick(8))).map { _ in randomLine(4 + pick(14)) }
            let dots = DotFont.dots(lines)
            let (w, h) = (Double(dots.columns) * glyph / 7, Double(dots.rows) * glyph / 7)
            let margin = glyph * uniform(0.5...2)
            return ([.text(lines: lines, height: glyph, ink: uniform(0...0.3)), .paper(width: w + 2 * margin, height: h + 2 * margin)],
                    w + 2 * margin, h + 2 * margin)
        case .squares:
            let patch = cell * uniform(1.5...5), gap = patch * uniform(0.1...0.6)
            let columns = 1 + pick(6), rows = 1 + pick(4)
            let levels = (0..<(columns * rows)).map { _ in chance(0.4) ? uniform(0...0.1) : uniform(0.1...0.9) }
            let w = Double(columns) * (patch + gap) + gap, h = Double(rows) * (patch + gap) + gap
            return ([.patches(columns: columns, rows: rows, patch: patch, gap: gap, levels: levels)], w, h)
        case .foreignCode:
            // A 4x4 or 6x6 code (plus its ring) in no dictionary read: random cells, as a QR-like sticker.
            let n = [4, 6][pick(2)], codeSide = side * uniform(0.6...1.4), margin = codeSide / Double(n + 2) * uniform(0.5...2)
            let cells = (0..<(n * n)).map { _ in chance(0.5) }
            return ([.foreignMarker(cells: cells, cellsPerSide: n, side: codeSide, margin: margin)], codeSide + 2 * margin, codeSide + 2 * margin)
        case .darkSquare:
            let s = side * uniform(0.3...1.5), gap = s * uniform(0.1...0.5), level = uniform(0...0.15)
            return ([.patches(columns: 1, rows: 1, patch: s, gap: gap, levels: [level])], s + 2 * gap, s + 2 * gap)
        }
    }

    private mutating func randomLine(_ length: Int) -> String {
        String((0..<length).map { _ in chance(0.15) ? " " : DotFont.characters[pick(DotFont.characters.count)] })
    }

    /// A printed poster behind everything, larger than the view: a page of text or a mosaic of gray tiles.
    private mutating func poster(at pose: Pose3D) -> [Target] {
        let depth = pose.tvec[2]
        let w = 2.2 * Double(width) * depth / camera.fx, h = 2.2 * Double(height) * depth / camera.fy
        if chance(0.5) {
            let glyph = side / 7 * uniform(1...2.5)
            let perLine = Int(w / (glyph * 6 / 7)), lineCount = Int(h / (glyph * 10 / 7))
            let lines = (0..<max(1, lineCount)).map { _ in randomLine(max(1, perLine - 1)) }
            return [Target(pattern: .text(lines: lines, height: glyph, ink: uniform(0...0.3)), pose: pose),
                    Target(pattern: .paper(width: w * 1.05, height: h * 1.05), pose: pose.offset(by: (0, 0, -0.2)))]
        }
        let tile = side * uniform(0.5...2), columns = max(1, Int(w / tile)), rows = max(1, Int(h / tile))
        let levels = (0..<(columns * rows)).map { _ in uniform(0.05...0.95) }
        return [Target(pattern: .patches(columns: columns, rows: rows, patch: tile, gap: 0, levels: levels), pose: pose)]
    }
}

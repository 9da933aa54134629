import Foundation

/// What is printed on a planar target, in the target's own frame (mm).
public enum TargetPattern: Sendable {
    /// One marker in OpenCV's marker frame (centre at the origin, x right, y up), white paper `margin`
    /// beyond its black square.
    case marker(id: Int, side: Double, margin: Double, dictionary: MarkerDictionary.Name = .arucoOriginal)
    /// A square marker of another code (a 4x4 or 6x6 one from OpenCV's dictionaries): its data cells
    /// row-major (true = white) inside a black ring of one cell, drawn like `marker`. It has no ID in any
    /// dictionary MarkerKit reads: renders of it test that nothing is read from them.
    case foreignMarker(cells: [Bool], cellsPerSide: Int, side: Double, margin: Double)
    /// A chessboard in OpenCV's calibration frame: the first inner corner at the origin, x along
    /// columns, y along rows; white paper one square beyond the board.
    case checkerboard(Checkerboard)
    /// A ChArUco board in OpenCV's board frame: origin at the board's top-left outer corner, x along
    /// columns, y along rows (down the printed board), the printed side towards -z; white paper half a
    /// square beyond the board.
    case charuco(CharucoBoard)
    /// Print beside markers, never in the truth. Each is drawn in the marker's frame (centre at the
    /// origin, x right, y up, printed side towards +z) and is nothing beyond its own rectangle.
    /// Gray patches in a grid, as a colour checker looks to a gray camera: `levels` row-major from the
    /// top row (0 black ink, 1 white paper), each patch `patch` mm square, `gap` mm of white paper
    /// between and around them.
    case patches(columns: Int, rows: Int, patch: Double, gap: Double, levels: [Double])
    /// Lines of capitals and digits in a 5x7 dot font (`DotFont`), top line first, glyphs `height` mm
    /// tall, one dot of paper between glyphs and three between lines, in ink of level `ink` on white.
    case text(lines: [String], height: Double, ink: Double)
    /// Plain white paper, `width` x `height` mm: a card the print and markers are stuck on.
    case paper(width: Double, height: Double)
}

/// One planar target and its pose.
public struct Target: Sendable {
    public var pattern: TargetPattern
    public var pose: Pose3D
    /// A sheet bent out of plane, as a board that is not glued flat: rolled about a line along v through
    /// u = `bendAxis`, with `curvature` (1/mm; 0 flat, the default). Point (u, v) of the pattern lies at
    /// arc length u - bendAxis from that line, (bendAxis + sin(k s) / k, v, (1 - cos(k s)) / k) in the
    /// target frame: with k > 0 the sheet's sides bend towards +z.
    public var curvature = 0.0
    public var bendAxis = 0.0

    public init(pattern: TargetPattern, pose: Pose3D) {
        self.pattern = pattern
        self.pose = pose
    }

    /// This target bent so that the middle of its pattern stands `sag` mm off the chord between its
    /// two sides at u = minU and maxU (positive: the sides towards +z), rolled about the middle.
    public func bent(sag: Double) -> Target {
        var target = self
        let e = PatternAlbedo(pattern).extent
        let half = (e.maxU - e.minU) / 2
        target.bendAxis = (e.minU + e.maxU) / 2
        // sag = (1 - cos(k half)) / k; for the small bends of a sheet, solved by a few Newton steps.
        var k = 2 * sag / (half * half)
        for _ in 0..<20 where k != 0 {
            let f = (1 - cos(k * half)) / k - sag
            let df = (k * half * sin(k * half) - (1 - cos(k * half))) / (k * k)
            k -= f / df
        }
        target.curvature = k
        return target
    }

    /// Where point (u, v) of the pattern lies in the target's frame (mm).
    public func surfacePoint(_ u: Double, _ v: Double) -> (Double, Double, Double) {
        guard curvature != 0 else { return (u, v, 0) }
        let s = u - bendAxis, k = curvature
        return (bendAxis + sin(k * s) / k, v, (1 - cos(k * s)) / k)
    }
}

/// How the scene is lit and what the camera adds, each a parameter.
public struct Degradations: Sendable, Equatable, Codable {
    /// Gray level of black ink and of white paper (0-255).
    public var black: Double = 30
    public var white: Double = 225
    /// Brightness change across the image, as a fraction (0.3: +-15% from one side to the other), and
    /// the direction it changes in, in degrees.
    public var gradient: Double = 0
    public var gradientAngle: Double = 0
    /// Gaussian noise, standard deviation in gray levels.
    public var noise: Double = 0
    /// Gaussian blur, standard deviation in pixels.
    public var blur: Double = 0
    /// JPEG quality 1-100, or nil for none.
    public var jpegQuality: Int? = nil
    /// Part (0-0.5) of each marker hidden behind a gray occluder, or 0.
    public var occlusion: Double = 0
    /// A textured background instead of a flat one.
    public var texturedBackground = false
    /// The flat background's gray level.
    public var background: Double = 110

    // What a phone camera adds. Truth files written before these existed hold none of them: absent, each
    // is off.

    /// Light lost towards the image corners through the lens (0-1): a cos⁴-like falloff that darkens the
    /// corner pixels by this fraction (`Vignetting`).
    public var vignetting: Double = 0
    /// Soft-edged shadows across the image (`Shadow`).
    public var shadows: [Shadow] = []
    /// Motion blur: the camera moved `motionBlur` px during the exposure, in the direction
    /// `motionBlurAngle` degrees (0 along +x, 90 along +y). Applied after the Gaussian blur.
    public var motionBlur: Double = 0
    public var motionBlurAngle: Double = 0
    /// Noise of a sensor behind a tone curve, larger in the dark (`SensorNoise`); added to `noise`.
    public var sensorNoise: SensorNoise? = nil

    public init() {}

    enum CodingKeys: String, CodingKey {
        case black, white, gradient, gradientAngle, noise, blur, jpegQuality, occlusion, texturedBackground, background
        case vignetting, shadows, motionBlur, motionBlurAngle, sensorNoise
    }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        black = try c.decode(Double.self, forKey: .black)
        white = try c.decode(Double.self, forKey: .white)
        gradient = try c.decode(Double.self, forKey: .gradient)
        gradientAngle = try c.decode(Double.self, forKey: .gradientAngle)
        noise = try c.decode(Double.self, forKey: .noise)
        blur = try c.decode(Double.self, forKey: .blur)
        jpegQuality = try c.decodeIfPresent(Int.self, forKey: .jpegQuality)
        occlusion = try c.decode(Double.self, forKey: .occlusion)
        texturedBackground = try c.decode(Bool.self, forKey: .texturedBackground)
        background = try c.decode(Double.self, forKey: .background)
        vignetting = try c.decodeIfPresent(Double.self, forKey: .vignetting) ?? 0
        shadows = try c.decodeIfPresent([Shadow].self, forKey: .shadows) ?? []
        motionBlur = try c.decodeIfPresent(Double.self, forKey: .motionBlur) ?? 0
        motionBlurAngle = try c.decodeIfPresent(Double.self, forKey: .motionBlurAngle) ?? 0
        sensorNoise = try c.decodeIfPresent(SensorNoise.self, forKey: .sensorNoise)
    }

    /// The phone's degradations are written only when on, so that other truth files read as before.
    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(black, forKey: .black)
        try c.encode(white, forKey: .white)
        try c.encode(gradient, forKey: .gradient)
        try c.encode(gradientAngle, forKey: .gradientAngle)
        try c.encode(noise, forKey: .noise)
        try c.encode(blur, forKey: .blur)
        try c.encodeIfPresent(jpegQuality, forKey: .jpegQuality)
        try c.encode(occlusion, forKey: .occlusion)
        try c.encode(texturedBackground, forKey: .texturedBackground)
        try c.encode(background, forKey: .background)
        if vignetting != 0 { try c.encode(vignetting, forKey: .vignetting) }
        if !shadows.isEmpty { try c.encode(shadows, forKey: .shadows) }
        if motionBlur != 0 {
            try c.encode(motionBlur, forKey: .motionBlur)
            try c.encode(motionBlurAngle, forKey: .motionBlurAngle)
        }
        try c.encodeIfPresent(sensorNoise, forKey: .sensorNoise)
    }

    /// The noise's standard deviation in gray levels at `level`: the Gaussian noise and the sensor's
    /// together.
    public func noise(at level: Double) -> Double {
        guard let sensor = sensorNoise?.sigma(at: level) else { return noise }
        return (noise * noise + sensor * sensor).squareRoot()
    }
}

/// A camera looking at planar targets: everything needed to render one image and know its truth.
public struct Scene: Sendable {
    public var camera: CameraCalibration
    public var width: Int
    public var height: Int
    public var targets: [Target]
    public var degradations: Degradations
    /// Seeds the noise, occlusion and background texture.
    public var seed: UInt64

    public init(camera: CameraCalibration, width: Int, height: Int, targets: [Target], degradations: Degradations = Degradations(), seed: UInt64 = 1) {
        self.camera = camera
        self.width = width
        self.height = height
        self.targets = targets
        self.degradations = degradations
        self.seed = seed
    }
}

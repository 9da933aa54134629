import Foundation

/// The ranges of the numbers that shape renders and the runs of `render`, `verify` and the capture
/// assistant's tests: one place, so that a command-line option and a library caller meet the same rule.
/// Each is checked with `InputRange.check`, which names the range when a value is outside it.
public enum RenderLimits {
    /// Gaussian noise, standard deviation in gray levels.
    public static let noise = 0.0...100
    /// Gaussian blur, standard deviation in pixels.
    public static let blur = 0.0...20
    /// JPEG quality.
    public static let jpegQuality = 1...100
    /// A pinhole camera's k1 in place of its own.
    public static let k1 = -1.0...1
    /// Images of one `render` run, and the scene it begins at.
    public static let renderCount = 1...100_000
    public static let start = 0...1_000_000
    /// Views of a calibration clip (`render --clip`) and of `verify calibration`.
    public static let clipViews = 2...500
    public static let calibrationViews = 3...500
    /// Seeds of the projection-uncertainty check.
    public static let uncertaintySeeds = 0...10_000
    /// Sampled renders of `verify markers` and of `verify board`.
    public static let markerRenders = 1...1_000_000
    public static let boardRenders = 1...10_000
    /// Frames of a pose clip's sweep and of each of its holds (`verify pose`).
    public static let poseFrames = 10...10_000
    /// A pose clip's marker sizes (side face-on, px).
    public static let poseSize = 8.0...2000
    /// Runs per frame of the benchmark.
    public static let benchmarkRepeats = 1...1000

    /// Noise and blur, named as `noiseName` and `blurName` when refused.
    public static func checkDegradations(noise: Double, blur: Double, noiseName: String = "noise", blurName: String = "blur") throws {
        try InputRange.check(noise, in: Self.noise, noiseName)
        try InputRange.check(blur, in: Self.blur, blurName)
    }
}

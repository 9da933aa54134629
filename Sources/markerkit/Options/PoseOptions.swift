import ArgumentParser
import MarkerKit

/// `--calibration` and `--marker-size` of `detect` and `track`: with both, each marker gets its pose; with
/// neither, IDs and corners only; with one, a note says what is missing.
struct PoseOptions: ParsableArguments {
    @Option(help: ArgumentHelp("A calibration: a name in the calibration store (calibrations list says where) or a calibration file.", valueName: "name|file"))
    var calibration: String?

    @Option(help: ArgumentHelp("Side of the markers' outer black square, with a unit (50mm, 0.05m).", valueName: "length"),
            transform: LengthArgument.positive)
    var markerSize: Length?

    @Flag(help: ArgumentHelp("In a video or a live stream: report each pose smoothed over the frames before (a One Euro filter; steadier overlays at a small lag: verify pose measures both)."))
    var smooth = false

    /// The pose estimator when both options are given (a ChArUco board's marker side, `boardMarker`, stands
    /// for --marker-size), nil otherwise (bad values throw).
    func estimator(boardMarker: Length? = nil) throws -> MarkerPoseEstimator? {
        let side = markerSize ?? boardMarker
        let camera = try calibration.map { try CalibrationStore.default.resolve($0) }
        if let side, let camera { return MarkerPoseEstimator(calibration: camera, side: side.value(in: .m)) }
        if side != nil || camera != nil { note("poses need both --calibration and --marker-size; reporting corners only") }
        else if smooth { note("--smooth smooths poses, which need --calibration and --marker-size; reporting corners only") }
        return nil
    }
}

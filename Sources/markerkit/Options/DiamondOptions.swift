import ArgumentParser
import MarkerKit

/// `--diamonds` of `detect` and `track`: OpenCV's ChArUco diamonds looked for among the markers read,
/// given the sides of their squares and markers; with `--calibration`, their poses (the square's side
/// gives the scale, as OpenCV's estimatePoseSingleMarkers on a diamond's corners).
struct DiamondOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Also find ChArUco diamonds (from 'generate diamond' or OpenCV's drawCharucoDiamond): the side of their squares and of their markers, with units, e.g. 40mm,24mm; with --calibration, their poses.",
                               valueName: "square,marker"))
    var diamonds: String?

    /// The diamond detector for markers of `dictionary`, and with a calibration the pose estimator of a
    /// diamond (its side the square's); nils without --diamonds.
    func readers(dictionary: MarkerDictionary, calibration: String?) throws -> (DiamondDetector?, MarkerPoseEstimator?) {
        guard let diamonds else { return (nil, nil) }
        return try naming("--diamonds: ") {
            let sides = try diamonds.split(separator: ",", omittingEmptySubsequences: false).map { try Length.positive(String($0)) }
            guard sides.count == 2 else {
                throw MarkerKitError.invalidArgument("'\(diamonds)': give the square's and the marker's side, e.g. 40mm,24mm")
            }
            let detector = try DiamondDetector(squareToMarker: sides[0].millimetres / sides[1].millimetres, dictionary: dictionary)
            let camera = try calibration.map { try CalibrationStore.default.resolve($0) }
            return (detector, camera.map { MarkerPoseEstimator(calibration: $0, side: sides[0].value(in: .m)) })
        }
    }
}

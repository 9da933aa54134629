import ArgumentParser
import MarkerKit

/// What `calibrate` solves for: the lens model and what it holds fixed.
struct LensModelOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Lens model: opencv5 (k1 k2 p1 p2 k3), opencv4 (k1 k2 p1 p2: radtan, ROS plumb_bob with k3 = 0), opencv8 (rational), fisheye.", valueName: "model"))
    var model = CameraCalibration.Model.opencv5

    @Flag(help: "Hold k3 at zero (opencv5): the radtan model Kalibr and ROS tools expect.")
    var fixK3 = false

    @Flag(help: "Fix fx/fy (pinhole models).")
    var fixAspect = false

    @Flag(help: "Assume no tangential distortion (p1 = p2 = 0).")
    var zeroTangent = false

    /// The calibrator set to these; --fix-k3 with a model without k3 to fix is refused.
    func apply(to calibrator: inout Calibrator) throws {
        if fixK3, ![.opencv5, .opencv4].contains(model) {
            throw MarkerKitError.invalidArgument("--fix-k3 applies to --model opencv5 (opencv4 has no k3; \(model.rawValue) keeps its own)")
        }
        calibrator.model = model
        calibrator.fixAspect = fixAspect
        calibrator.zeroTangent = zeroTangent
        calibrator.fixK3 = fixK3
    }
}

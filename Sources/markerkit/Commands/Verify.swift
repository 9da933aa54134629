import ArgumentParser

struct Verify: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Measure detection and calibration accuracy on renders with exact truth, side by side with OpenCV.",
        subcommands: [VerifyMarkers.self, VerifyCalibration.self, VerifyBoard.self, VerifyPose.self]
    )
}

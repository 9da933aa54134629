import Foundation

/// How sure a rig calibrated from the sets kept so far is of each camera's place relative to the first:
/// the rig capture's measure of a pair, as the projection uncertainty is one camera's. It is the joint
/// solve `calibrate --rig` runs, on the corners the capture found, so its sigmas are those the stored rig
/// will carry for the same views.
public struct RigPairState: Sendable, Equatable, Codable {
    public let first: String
    public let second: String
    /// Sets the solve used.
    public let sets: Int
    /// The distance between the two optical centres and its sigma (the board's units), the sigma of its
    /// direction and of the rotation between the cameras (degrees).
    public let baseline: Double
    public let baselineSigma: Double
    public let directionSigma: Double
    public let rotationSigma: Double
    public let units: String

    /// Solves the rig from each camera's kept views (the same sets in every camera, in order); nil before
    /// 3 sets, or while they cannot pin a camera down (too alike to give a calibration).
    static func measure(_ assistants: [CaptureAssistant], names: [String], target: CalibrationTarget) -> [RigPairState]? {
        let sets = assistants.map(\.kept.count).min() ?? 0
        guard sets >= 3, assistants.allSatisfy({ $0.kept.count == sets }) else { return nil }
        var calibrator = Calibrator(target: target)
        calibrator.model = .opencv5
        let cameras = zip(names, assistants).map { name, assistant in
            let views = assistant.kept.enumerated().map { Calibrator.View(file: CaptureSession.viewName($0.offset), status: .used, corners: $0.element.corners,
                                                                          cornerIDs: $0.element.cornerIDs, cornerSigmas: $0.element.cornerSigmas) }
            let frame = assistant.kept[0].frame
            return RigCalibrator.Camera(name: name, views: views, width: frame.width, height: frame.height)
        }
        guard let rig = try? RigCalibrator(calibrator: calibrator).calibrate(cameras: cameras, name: "capture").rig else { return nil }
        return (1..<rig.cameras.count).map { c in
            let sigma = rig.poseSigma(of: c)
            return RigPairState(first: names[0], second: names[c], sets: sets, baseline: rig.baseline(of: c), baselineSigma: sigma.length,
                                directionSigma: sigma.direction, rotationSigma: sigma.rotation, units: rig.units)
        }
    }

    /// "cam0-cam1: baseline 120.02 ± 0.05 mm, rotation ± 0.04° (8 sets)".
    public var line: String {
        String(format: "%@-%@: baseline %.2f ± %.3f %@, direction ± %.3f°, rotation ± %.3f° (%d sets)",
               first, second, baseline, baselineSigma, units, directionSigma, rotationSigma, sets)
    }
}

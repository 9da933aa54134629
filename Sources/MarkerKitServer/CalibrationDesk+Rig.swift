import Foundation
import MarkerKit

/// The desk for a rig's sets (`RigStation`): the joint calibration `calibrate --rig` runs on the cameras'
/// folders, and the rig formats that are one file (OpenCV stereo, Kalibr).
extension CalibrationDesk {
    func calibrateRig(names: [String], views: [[URL]], target: CalibrationTarget, model: String?) throws -> Summary {
        var calibrator = Calibrator(target: target)
        calibrator.model = try model.map { try CameraCalibration.Model.solvable(named: $0) } ?? .opencv5
        let result = try RigCalibrator(calibrator: calibrator).calibrate(files: views, names: names, name: CalibrationStore.defaultName)
        setCurrent(rig: result)
        let rig = result.rig
        let notUsed = zip(names, result.single).flatMap { name, single in
            single.views.filter { $0.status != .used }.map { "\(name)/\($0.file): \($0.reason)" }
        }
        var summary = Summary(name: rig.name, lines: RigSummary.lines(for: rig), used: rig.views, images: views.first?.count ?? 0, notUsed: notUsed,
                              formats: RigFormat.allCases.map { format in
                                  do {
                                      _ = try Self.export(rig, format: format.rawValue)
                                      return Format(name: format.rawValue, problem: nil)
                                  } catch {
                                      return Format(name: format.rawValue, problem: (error as? MarkerKitError)?.description ?? "\(error)")
                                  }
                              }, verdict: nil)
        summary.rig = true
        return summary
    }

    /// A rig in one of the rig formats that is one file; the others write a file per camera.
    static func export(_ rig: CameraRig, format name: String) throws -> (name: String, data: Data) {
        let format = try RigFormat(name: name)
        guard !format.perCamera else {
            throw MarkerKitError.invalidArgument("\(format.rawValue) writes one file per camera: store the rig and export it with markerkit calibrations export")
        }
        let files = try format.encode(rig, file: "\(rig.name).\(format.rawValue).yaml")
        guard let first = files.first else { throw MarkerKitError.invalidArgument("\(format.rawValue) gave no file") }
        return (first.0, first.1)
    }

    static func stored(rig: CameraRig, name: String) -> Stored {
        var stored = Stored(name: name, model: rig.cameras[0].model.rawValue, width: rig.cameras[0].imageWidth, height: rig.cameras[0].imageHeight,
                            fx: rig.cameras[0].fx, fy: rig.cameras[0].fy, rms: rig.cameraRMS.max(), views: rig.views, problem: nil)
        stored.cameras = rig.cameras.map(\.name)
        stored.baseline = rig.baseline(of: 1)
        stored.units = rig.units
        stored.formats = RigFormat.allCases.filter { (try? export(rig, format: $0.rawValue)) != nil }.map(\.rawValue)
        return stored
    }
}

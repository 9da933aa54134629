import ArgumentParser
import Foundation
import MarkerKit

/// `calibrate --rig`: one folder per camera, solved jointly and stored as one rig.
extension Calibrate {
    func runRig() throws {
        let jobCount = try jobs.count()
        // Every option checked before any folder is read.
        if report != nil { throw ValidationError("--report takes one camera; a rig's cameras are reported by 'calibrations export RIG --camera NAME' and 'calibrate' on each folder") }
        let given = try rigOptions.names(count: self.inputs.count)
        let target = try BoardOptions.target(board: board, inner: inner, square: square, log: nil)
        let name = try naming("--name: ") { try CalibrationStore.normalized(name: self.name ?? "rig") }
        let location = try output.map(Self.file) ?? CalibrationLocation(name: name)
        guard location.format == .opencvYAML || location.format == .opencvXML else {
            throw MarkerKitError.cannotWrite("cannot write '\(location.shown)': a rig is written as .yaml or .xml (other formats: markerkit calibrations export)")
        }
        try location.checkDestination(force: force)
        let inputs = try RigInputs(folders: self.inputs, option: "--rig")
        let names = given ?? inputs.cameras.map(\.name)
        var calibrator = Calibrator(target: target)
        try lens.apply(to: &calibrator)
        try calibrator.model.requireSolvable()
        Interrupt.install()
        var cameras: [RigCalibrator.Camera] = []
        for index in inputs.cameras.indices {
            let progress = ProgressBar(label: "finding boards (\(names[index]))")
            let found = try calibrator.findBoards(in: inputs.images[index], jobs: jobCount) { done, total, file in
                progress.update(done, total, file)
                if done == total { progress.finish() }
                try Interrupt.checkpoint("calibration")
            }
            cameras.append(RigCalibrator.Camera(name: names[index], views: found.views, width: found.width, height: found.height))
        }
        let rigCalibrator = RigCalibrator(calibrator: calibrator)
        let result = try rigCalibrator.calibrate(cameras: cameras, name: name)
        try Interrupt.checkpoint("calibration")
        // The rig stands whatever the check says; a check that cannot be made says why.
        var check: [String] = []
        if crossValidate {
            do {
                check = try RigCrossValidation.run(rigCalibrator, cameras: cameras, name: name).lines
            } catch let error as MarkerKitError {
                check = ["cross-validation not possible: \(error.description)"]
            }
        }
        print("calibrated a rig of \(cameras.count) cameras from \(result.rig.views) of \(inputs.views.count) views")
        for line in RigSummary.lines(for: result.rig) { print(line) }
        for (c, single) in result.single.enumerated() {
            for view in single.views where view.status != .used { print("  not used by \(cameras[c].name): \(view.file): \(view.reason)") }
        }
        for line in check { print(line) }
        try location.write(result.rig, force: force)
        print("\(location.inStore ? "stored" : "wrote") \(location.shown)")
    }

    /// A file for -o; the store's other formats are one export away.
    static func file(_ path: String) throws -> CalibrationLocation {
        do {
            return try CalibrationLocation(file: URL(fileURLWithPath: path))
        } catch let error as MarkerKitError {
            throw MarkerKitError.cannotWrite("\(error.cliMessage) (other formats: markerkit calibrations export)")
        }
    }
}

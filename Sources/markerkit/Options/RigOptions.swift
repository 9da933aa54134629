import ArgumentParser
import Foundation
import MarkerKit

/// `calibrate --rig`: the inputs are cameras' folders, and the cameras' names.
struct RigOptions: ParsableArguments {
    @Flag(help: "Calibrate a rig: each input is one camera's folder, images matched by name across folders (left01.jpg, right01.jpg); intrinsics and every camera's pose relative to the first solved together.")
    var rig = false

    @Option(help: ArgumentHelp("The rig's cameras' names, in the folders' order (default: the folders' names).", valueName: "a,b,..."))
    var cameraNames: String?

    /// The names for `count` cameras, or nil for the folders' names.
    func names(count: Int) throws -> [String]? {
        guard let cameraNames else { return nil }
        guard rig else { throw ValidationError("--camera-names goes with --rig") }
        let names = cameraNames.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        guard names.count == count, names.allSatisfy({ !$0.isEmpty }), Set(names).count == count else {
            throw ValidationError("--camera-names takes \(count) different names, one per folder, comma-separated")
        }
        return try names.map { name in try naming("--camera-names: ") { try CalibrationStore.normalized(name: name) } }
    }
}

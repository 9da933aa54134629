import ArgumentParser
import Foundation
import MarkerKit

/// `capture` with several --device: the cameras' names and how far apart a set's frames may be.
struct RigCaptureOptions: ParsableArguments {
    @Option(help: ArgumentHelp("With several --device: the cameras' names, in the devices' order (default cam0, cam1, ...).", valueName: "a,b,..."))
    var cameraNames: String?

    @Option(help: ArgumentHelp("With several --device: the most a set's frames may lie apart, with a unit (default: half the slowest camera's frame time and 2 ms, 18.7ms at 30 fps; at most 1s).", valueName: "time"))
    var maxGap: String?

    /// The names for `count` cameras.
    func names(count: Int) throws -> [String] {
        guard let cameraNames else { return (0..<count).map { "cam\($0)" } }
        let names = cameraNames.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        guard names.count == count, names.allSatisfy({ !$0.isEmpty }), Set(names).count == count else {
            throw ValidationError("--camera-names takes \(count) different names, one per --device, comma-separated")
        }
        return try names.map { name in try naming("--camera-names: ") { try CalibrationStore.normalized(name: name) } }
    }

    /// The gap in seconds: `15ms`, `0.02s`; a bare number is refused (its unit is not known). By default
    /// half the slowest feed's frame time and 2 ms: two free-running cameras' nearest frames are at most
    /// half a frame time apart, so every held board finds a set.
    func gap(rates: [Double]) throws -> Double {
        guard let maxGap else {
            let slowest = rates.filter { $0.isFinite && $0 > 0 }.min() ?? 30
            return min(1, 0.5 / slowest + 0.002)
        }
        let text = maxGap.trimmingCharacters(in: .whitespaces).lowercased()
        let (number, scale): (Substring, Double) = text.hasSuffix("ms") ? (text.dropLast(2), 0.001) : text.hasSuffix("s") ? (text.dropLast(), 1) : (Substring(text), .nan)
        guard !scale.isNaN else { throw MarkerKitError.invalidArgument("--max-gap '\(maxGap.prefix(40))' has no unit: give ms or s (15ms)") }
        guard number.count <= 20, let value = Double(number.trimmingCharacters(in: .whitespaces)), value.isFinite, value * scale > 0, value * scale <= 1 else {
            throw MarkerKitError.invalidArgument("--max-gap '\(maxGap.prefix(40))' is outside 0-1 s")
        }
        return value * scale
    }
}

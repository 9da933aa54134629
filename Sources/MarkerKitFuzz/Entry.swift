import Foundation

#if FUZZING
// Under libFuzzer: `make fuzz` builds this target with -sanitize=fuzzer and -DFUZZING. SwiftPM links an
// executable's entry as MODULE_main, so that entry hands over to libFuzzer's driver.
private let target = FuzzTarget.fromEnvironment()

@_silgen_name("LLVMFuzzerRunDriver")
private func runDriver(_ argc: UnsafeMutablePointer<CInt>,
                       _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
                       _ body: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt) -> CInt

@_cdecl("MarkerKitFuzz_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var count = argc
    var arguments = argv
    _ = target
    return runDriver(&count, &arguments) { bytes, size in
        target.check(size == 0 || bytes == nil ? Data() : Data(bytes: bytes!, count: size))
        return 0
    }
}
#else
/// Without the fuzzer: replays files through a target (a crash input, a corpus) and says how many it accepted.
/// `MarkerKitFuzz TARGET FILE...`
@main enum Replay {
    static func main() {
        let arguments = CommandLine.arguments.dropFirst()
        guard let name = arguments.first, let target = FuzzTarget(rawValue: name) else {
            print("usage: MarkerKitFuzz TARGET FILE...  (targets: \(FuzzTarget.allCases.map(\.rawValue).joined(separator: ", ")))")
            exit(2)
        }
        var accepted = 0, total = 0
        for path in arguments.dropFirst() {
            guard let data = FileManager.default.contents(atPath: path) else { print("cannot read \(path)"); exit(1) }
            total += 1
            if target.check(data) { accepted += 1 }
        }
        print("\(target.rawValue): \(total) inputs, \(accepted) accepted, no crash")
    }
}
#endif

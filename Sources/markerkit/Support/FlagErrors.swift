import MarkerKit

/// The library's errors in the tool's words. The library names no command-line flag (other packages
/// use it too); the tool adds the flag a bad value came from and what to type to go on.
extension MarkerKitError {
    var cliMessage: String {
        switch self {
        case .outputExists(let path): return "'\(path)' exists: add --force to replace it"
        case .advised(let error, let remedy): return "\(error.cliMessage); \(remedy.cliWords)"
        default: return description
        }
    }
}

extension Remedy {
    /// The remedy as what to type.
    var cliWords: String {
        switch self {
        case .listCameras: "see markerkit capture --list"
        case .requestSize(let w, let h): "ask for --size \(w)x\(h)"
        case .allowScaling(let w, let h): "leave out --no-scale, or ask for --size \(w)x\(h)"
        case .lensModel(let model): "calibrate with --model \(model)"
        case .withoutK3: "calibrate again with --model opencv4 (or --fix-k3), or export to another format"
        case .renderBoard: "render one with 'markerkit render --board'"
        case .anotherPort: "give --port"
        }
    }
}

/// Runs `body`; a bad value it reports is prefixed with `flag` ("--ids ", "--dpi: "), so that the
/// message names the option the value was typed into.
func naming<T>(_ flag: String, _ body: () throws -> T) throws -> T {
    do {
        return try body()
    } catch MarkerKitError.invalidArgument(let message) {
        throw MarkerKitError.invalidArgument(flag + message)
    } catch MarkerKitError.advised(.invalidArgument(let message), let remedy) {
        throw MarkerKitError.advised(.invalidArgument(flag + message), remedy)
    }
}

import MarkerKit

/// The library's errors in the tool's words. The library names no command-line flag (other packages
/// use it too); the tool adds the flag a bad value came from and what to type to go on.
extension MarkerKitError {
    var cliMessage: String {
        switch self {
        case .outputExists(let path): return "'\(path)' exists: add --force to replace it"
        default: return description
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
    }
}

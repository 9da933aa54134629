import Foundation

/// Every failure a user can cause, with a message that fits on one line and names the input.
public enum MarkerKitError: Error, CustomStringConvertible, Equatable {
    /// An argument or option value that cannot be used (a size without a unit, an ID out of range).
    case invalidArgument(String)
    /// An input file that is missing or unreadable.
    case missingInput(String)
    /// An input file whose contents are wrong (a corrupt image, a malformed spec).
    case badInput(String)
    /// Output that cannot be created (missing directory, unknown extension, unwritable path).
    case cannotWrite(String)
    /// An output file that exists and was not to be replaced (`force` not set): its path.
    case outputExists(String)
    /// Something the library itself got wrong: a bug, never the user's fault.
    case internalFailure(String)
    /// The user stopped a long run with Ctrl-C (SIGINT) or SIGTERM before it wrote anything.
    case interrupted(String)
    /// A camera that went away while streaming (unplugged, its driver reset): what was saved stays.
    case cameraLost(String)
    /// A failure and what the user can do about it, which each front end words for its own users.
    indirect case advised(MarkerKitError, Remedy)

    public var description: String {
        switch self {
        case .invalidArgument(let m), .missingInput(let m), .badInput(let m), .cannotWrite(let m),
             .internalFailure(let m), .interrupted(let m), .cameraLost(let m):
            return m
        case .outputExists(let path):
            return "'\(path)' exists (not replaced)"
        case .advised(let error, let remedy):
            return "\(error.description); \(remedy.description)"
        }
    }

    /// The process exit code for this failure (BSD sysexits, as the README documents).
    /// Every non-zero code markerkit exits with (README, `markerkit --help`): 1 for a partial failure
    /// (some inputs unreadable) and the sysexits codes below.
    public static let documentedExitCodes: Set<Int32> = [1, 64, 65, 66, 70, 73, 74, 130]

    public var exitCode: Int32 {
        switch self {
        case .invalidArgument: return 64  // EX_USAGE
        case .badInput: return 65         // EX_DATAERR
        case .missingInput: return 66     // EX_NOINPUT
        case .internalFailure: return 70  // EX_SOFTWARE
        case .cannotWrite, .outputExists: return 73 // EX_CANTCREAT
        case .cameraLost: return 74       // EX_IOERR
        case .interrupted: return 130     // 128 + SIGINT, as shells report Ctrl-C
        case .advised(let error, _): return error.exitCode
        }
    }
}

extension MarkerKitError {
    /// The bytes of an input file, or the one-line error that names it (`what`: "calibration", "board spec")
    /// as `shown` (default: as given, `url.relativePath`).
    public static func contents(of url: URL, what: String, shown: String? = nil) throws -> Data {
        do {
            return try Data(contentsOf: url)
        } catch {
            throw MarkerKitError.missingInput("cannot read \(what) '\(shown ?? url.relativePath)': no such file or not readable")
        }
    }
}

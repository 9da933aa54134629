import Foundation

/// What is at a path, links followed, found without opening it. Special files (FIFOs, sockets,
/// devices) are never opened: opening a FIFO waits for a writer.
enum PathKind: Equatable {
    case missing, folder, file
    /// A FIFO, socket or device, with what it is ("a FIFO").
    case special(String)

    static func of(_ path: String) -> PathKind {
        var info = stat()
        guard stat(path, &info) == 0 else { return .missing }
        switch info.st_mode & S_IFMT {
        case S_IFDIR: return .folder
        case S_IFREG: return .file
        case S_IFIFO: return .special("a FIFO")
        case S_IFSOCK: return .special("a socket")
        case S_IFCHR, S_IFBLK: return .special("a device")
        default: return .special("not a file")
        }
    }

    /// The error for a special file where an image or video was expected (exit code 66, as unreadable input).
    static func notARegularFile(_ path: String, _ what: String) -> MarkerKitError {
        .missingInput("cannot read '\(path)': it is \(what), not a regular file (not opened)")
    }
}

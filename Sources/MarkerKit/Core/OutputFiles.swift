import Foundation

/// Writes a set of files all or nothing: each goes to a temporary file beside its destination, and only
/// when every one is complete are they renamed into place. A failure leaves earlier files untouched.
public struct OutputFiles {
    public private(set) var files: [(url: URL, data: Data)] = []

    public init() {}

    public mutating func add(_ data: Data, at url: URL) { files.append((url, data)) }

    /// Fails early, before any work, when `url` cannot be a destination (missing directory, a directory),
    /// or is a file that exists and `force` is not set: nothing is replaced unless `force`.
    public static func checkDestination(_ url: URL, force: Bool) throws {
        let directory = url.deletingLastPathComponent()
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw MarkerKitError.cannotWrite("cannot write '\(url.path)': directory '\(directory.path)' does not exist")
        }
        if FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), isDirectory.boolValue {
            throw MarkerKitError.cannotWrite("cannot write '\(url.path)': it is a directory")
        }
        guard FileManager.default.isWritableFile(atPath: directory.path) else {
            throw MarkerKitError.cannotWrite("cannot write '\(url.path)': directory '\(directory.path)' is not writable")
        }
        if !force && FileManager.default.fileExists(atPath: url.path) {
            throw MarkerKitError.outputExists(url.relativePath)
        }
    }

    /// The rule of `checkDestination` for a folder that output goes into: when the folder exists, each of
    /// `names` in it that exists is refused unless `force`; a folder yet to be made holds nothing to refuse.
    public static func checkDirectoryDestination(_ directory: URL, names: [String], force: Bool) throws {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory), isDirectory.boolValue else { return }
        for name in names { try checkDestination(directory.appendingPathComponent(name), force: force) }
    }

    /// Writes every file atomically; returns their URLs in order.
    @discardableResult
    public func commit() throws -> [URL] {
        var staged: [(temp: URL, final: URL)] = []
        do {
            for (url, data) in files {
                // Whether a file may be replaced was the command's to decide (`checkDestination` up front).
                try Self.checkDestination(url, force: true)
                let temp = url.deletingLastPathComponent()
                    .appendingPathComponent(".\(url.lastPathComponent).\(getpid()).\(staged.count).tmp")
                staged.append((temp, url))
                try Self.writeSynced(data, to: temp, for: url)
            }
            for (temp, final) in staged {
                guard rename(temp.path, final.path) == 0 else {
                    throw MarkerKitError.cannotWrite("cannot write '\(final.path)': \(String(cString: strerror(errno)))")
                }
            }
        } catch {
            for (temp, _) in staged { unlink(temp.path) }
            throw error
        }
        return files.map(\.url)
    }

    /// Writes one file atomically; an existing file is replaced only with `force`, and never seen half
    /// written: without `force` the new file is linked into place, which fails if the name exists even
    /// when another process created it a moment ago.
    public static func writeProtected(_ data: Data, to url: URL, force: Bool) throws {
        try checkDestination(url, force: force)
        let temp = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).\(getpid()).tmp")
        defer { unlink(temp.path) }
        try writeSynced(data, to: temp, for: url)
        if force {
            guard rename(temp.path, url.path) == 0 else {
                throw MarkerKitError.cannotWrite("cannot write '\(url.path)': \(String(cString: strerror(errno)))")
            }
        } else {
            guard link(temp.path, url.path) == 0 else {
                if errno == EEXIST { throw MarkerKitError.outputExists(url.path) }
                throw MarkerKitError.cannotWrite("cannot write '\(url.path)': \(String(cString: strerror(errno)))")
            }
        }
        // The directory entry itself survives a crash only once the directory is synced.
        let directory = open(url.deletingLastPathComponent().path, O_RDONLY)
        if directory >= 0 { fsync(directory); close(directory) }
    }

    /// Writes and fsyncs `data` to the temporary file `url`, so that the rename that follows never
    /// exposes a partial file; errors name `final`, the file the user asked for.
    static func writeSynced(_ data: Data, to url: URL, for final: URL) throws {
        let fd = open(url.path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard fd >= 0 else {
            throw MarkerKitError.cannotWrite("cannot write '\(final.path)': \(String(cString: strerror(errno)))")
        }
        defer { close(fd) }
        try data.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) in
            var offset = 0
            while offset < buffer.count {
                let n = write(fd, buffer.baseAddress! + offset, buffer.count - offset)
                if n < 0 {
                    if errno == EINTR { continue }
                    throw MarkerKitError.cannotWrite("cannot write '\(final.path)': \(String(cString: strerror(errno)))")
                }
                offset += n
            }
        }
        guard fsync(fd) == 0 else {
            throw MarkerKitError.cannotWrite("cannot write '\(final.path)': \(String(cString: strerror(errno)))")
        }
    }
}

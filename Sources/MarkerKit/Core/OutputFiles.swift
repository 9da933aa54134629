import Foundation

/// Writes a set of files all or nothing: each goes to a temporary file beside its destination, and only
/// when every one is complete are they renamed into place. A failure leaves earlier files untouched.
public struct OutputFiles {
    public private(set) var files: [(url: URL, data: Data)] = []

    public init() {}

    public mutating func add(_ data: Data, at url: URL) { files.append((url, data)) }

    /// Fails early, before any work, when `url` cannot be a destination (missing directory, a directory),
    /// or is a file that exists and `force` is not set: nothing is replaced unless `force`. Messages name
    /// the file as `shown` (default: the path as given, `url.relativePath`), never as an absolute path the
    /// user did not type.
    public static func checkDestination(_ url: URL, force: Bool, shown: String? = nil) throws {
        let shown = shown ?? url.relativePath
        let directory = url.deletingLastPathComponent()
        // Not NSString.deletingLastPathComponent: swift-corelibs-foundation traps on a one-character path ("0").
        let shownDirectory = shown.lastIndex(of: "/").map { $0 == shown.startIndex ? "/" : String(shown[..<$0]) } ?? ""
        let its = shownDirectory.isEmpty ? "its directory" : "directory '\(shownDirectory)'"
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw MarkerKitError.cannotWrite("cannot write '\(shown)': \(its) does not exist")
        }
        if FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), isDirectory.boolValue {
            throw MarkerKitError.cannotWrite("cannot write '\(shown)': it is a directory")
        }
        guard FileManager.default.isWritableFile(atPath: directory.path) else {
            throw MarkerKitError.cannotWrite("cannot write '\(shown)': \(its) is not writable")
        }
        if !force && FileManager.default.fileExists(atPath: url.path) {
            throw MarkerKitError.outputExists(shown)
        }
    }

    /// The rule of `checkDestination` for a folder that output goes into: when the folder exists, each of
    /// `names` in it that exists is refused unless `force`; a folder yet to be made holds nothing to refuse.
    public static func checkDirectoryDestination(_ directory: URL, names: [String], force: Bool) throws {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory), isDirectory.boolValue else { return }
        for name in names {
            let url = directory.appendingPathComponent(name)
            // A subfolder yet to be made (a rig's camera folder) holds nothing to refuse either.
            guard FileManager.default.fileExists(atPath: url.deletingLastPathComponent().path) else { continue }
            try checkDestination(url, force: force)
        }
    }

    /// Writes every file atomically; returns their URLs in order.
    @discardableResult
    public func commit() throws -> [URL] {
        var staged: [Temporary] = []
        defer { for temp in staged { temp.close() } }
        do {
            for (url, data) in files {
                // Whether a file may be replaced was the command's to decide (`checkDestination` up front).
                try Self.checkDestination(url, force: true)
                let temp = try Temporary(beside: url, shown: url.relativePath)
                staged.append(temp)
                try temp.write(data)
            }
            for temp in staged { try temp.rename() }
        } catch {
            for temp in staged { temp.remove() }
            throw error
        }
        return files.map(\.url)
    }

    /// Writes one file atomically; an existing file is replaced only with `force`, and never seen half
    /// written: without `force` the new file is linked into place, which fails if the name exists even
    /// when another process created it a moment ago. Writers of one name at once do not meet: each writes
    /// its own temporary file (see `Temporary`), so with `force` each replaces the file whole, the last
    /// rename winning, and without `force` exactly one links its file in and the others are refused.
    /// Messages name the file as `shown` (default `url.relativePath`).
    public static func writeProtected(_ data: Data, to url: URL, force: Bool, shown: String? = nil) throws {
        let shown = shown ?? url.relativePath
        try checkDestination(url, force: force, shown: shown)
        let temp = try Temporary(beside: url, shown: shown)
        defer {
            temp.remove()
            temp.close()
        }
        try temp.write(data)
        if force {
            try temp.rename()
        } else {
            try temp.link()
        }
        // The directory entry itself survives a crash only once the directory is synced.
        let directory = open(url.deletingLastPathComponent().path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if directory >= 0 { fsync(directory); Foundation.close(directory) }
    }

    /// A temporary file beside a destination, created by this writer and no one else: its name carries
    /// 64 random bits (so it cannot be predicted, and two writers of one destination never share one),
    /// and it is opened with O_CREAT|O_EXCL|O_NOFOLLOW, so a file or symbolic link planted at that name
    /// is never written through: the open fails and another name is drawn. Before it is renamed or linked
    /// into place, the name is checked to still be the file this writer opened.
    struct Temporary {
        let url: URL
        let final: URL
        let shown: String
        let fd: Int32

        init(beside final: URL, shown: String) throws {
            var random = KernelRandom()
            try self.init(beside: final, shown: shown, using: &random)
        }

        /// Tokens from the kernel's /dev/urandom. Not SystemRandomNumberGenerator: a type without
        /// storage has no address of its own, so `inout` uses of it on many threads look to
        /// ThreadSanitizer like accesses to one shared variable. `drawn` gives each generator its own.
        struct KernelRandom: RandomNumberGenerator {
            var drawn = 0
            mutating func next() -> UInt64 {
                drawn += 1
                var token: UInt64 = 0
                let source = open("/dev/urandom", O_RDONLY | O_CLOEXEC)
                if source >= 0 {
                    defer { Foundation.close(source) }
                    if read(source, &token, MemoryLayout<UInt64>.size) == MemoryLayout<UInt64>.size { return token }
                }
                return UInt64.random(in: .min ... .max)
            }
        }

        /// The name a token gives: `.NAME.<16 hex digits>.tmp` beside `final`.
        static func url(beside final: URL, token: UInt64) -> URL {
            // NAME_MAX is 255 bytes: a long destination name is not repeated in the temporary one.
            let base = final.lastPathComponent.utf8.count <= 200 ? final.lastPathComponent : "markerkit"
            let hex = String(token, radix: 16)
            return final.deletingLastPathComponent().appendingPathComponent(".\(base).\(String(repeating: "0", count: 16 - hex.count))\(hex).tmp")
        }

        /// With the tokens drawn from `random` (the tests give a generator whose names they have planted).
        init<Random: RandomNumberGenerator>(beside final: URL, shown: String, using random: inout Random) throws {
            self.final = final
            self.shown = shown
            for _ in 0..<64 {
                let candidate = Self.url(beside: final, token: random.next())
                let fd = open(candidate.path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
                if fd >= 0 {
                    url = candidate
                    self.fd = fd
                    return
                }
                if errno == EEXIST || errno == EINTR { continue }
                throw MarkerKitError.cannotWrite("cannot write '\(shown)': \(String(cString: strerror(errno)))")
            }
            throw MarkerKitError.cannotWrite("cannot write '\(shown)': no free temporary name beside it")
        }

        /// Writes and fsyncs `data`, so that the rename that follows never exposes a partial file.
        func write(_ data: Data) throws {
            try data.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) in
                var offset = 0
                while offset < buffer.count {
                    let n = Foundation.write(fd, buffer.baseAddress! + offset, buffer.count - offset)
                    if n < 0 {
                        if errno == EINTR { continue }
                        throw failure()
                    }
                    offset += n
                }
            }
            guard fsync(fd) == 0 else { throw failure() }
        }

        /// Replaces `final` with this file.
        func rename() throws {
            try checkStillOurs()
            guard Foundation.rename(url.path, final.path) == 0 else { throw failure() }
        }

        /// Links this file in as `final`; refused with `outputExists` when `final` exists.
        func link() throws {
            try checkStillOurs()
            guard Foundation.link(url.path, final.path) == 0 else {
                if errno == EEXIST { throw MarkerKitError.outputExists(shown) }
                throw failure()
            }
        }

        /// The name still holds the regular file this writer created (not something put there since).
        private func checkStillOurs() throws {
            var named = stat(), opened = stat()
            guard lstat(url.path, &named) == 0, fstat(fd, &opened) == 0,
                  named.st_dev == opened.st_dev, named.st_ino == opened.st_ino, (named.st_mode & S_IFMT) == S_IFREG else {
                throw MarkerKitError.cannotWrite("cannot write '\(shown)': its temporary file was replaced while being written")
            }
        }

        /// Removes the temporary name when it is still this writer's file (after a rename it is not there).
        func remove() {
            var named = stat(), opened = stat()
            guard lstat(url.path, &named) == 0, fstat(fd, &opened) == 0,
                  named.st_dev == opened.st_dev, named.st_ino == opened.st_ino else { return }
            unlink(url.path)
        }

        func close() { Foundation.close(fd) }

        private func failure() -> MarkerKitError {
            MarkerKitError.cannotWrite("cannot write '\(shown)': \(String(cString: strerror(errno)))")
        }
    }
}

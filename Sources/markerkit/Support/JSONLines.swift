import Foundation
import MarkerKit

/// `--jsonl` output: lines to stdout as they come, or to a temporary file moved into place at the end.
struct JSONLines {
    let url: URL?
    private var handle: FileHandle
    private let temporary: URL?

    init(url: URL?) throws {
        self.url = url
        if let url {
            let temp = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).\(getpid()).tmp")
            guard FileManager.default.createFile(atPath: temp.path, contents: nil), let handle = FileHandle(forWritingAtPath: temp.path) else {
                throw MarkerKitError.cannotWrite("cannot write '\(url.path)'")
            }
            self.handle = handle
            temporary = temp
        } else {
            handle = FileHandle.standardOutput
            temporary = nil
        }
    }

    /// One line's bytes, kept from frame to frame.
    private var line: [UInt8] = []

    mutating func write(_ result: DetectionReport.FrameResult) throws {
        line.removeAll(keepingCapacity: true)
        result.appendJSONLine(to: &line)
        let descriptor = handle.fileDescriptor
        try line.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = Foundation.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                if written < 0 && errno == EINTR { continue }
                guard written > 0 else {
                    throw MarkerKitError.cannotWrite("cannot write '\(url?.path ?? "standard output")': \(String(cString: strerror(errno)))")
                }
                offset += written
            }
        }
    }

    func finish() throws {
        guard let url, let temporary else { return }
        try handle.synchronize()
        try handle.close()
        guard rename(temporary.path, url.path) == 0 else { throw MarkerKitError.cannotWrite("cannot write '\(url.path)'") }
    }
}

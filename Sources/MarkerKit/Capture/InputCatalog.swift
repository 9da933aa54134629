import Foundation

/// What a user named on the command line, sorted into image files and video files: folders are
/// expanded (sorted, non-images skipped with a note), missing paths and empty folders are problems.
/// Special files (FIFOs, sockets, devices) are never opened: opening a FIFO waits for a writer, so one
/// named `x.png` in a folder would stop the run for good. In a folder they are skipped with a note;
/// named on the command line they are a problem.
public struct InputCatalog: Sendable {
    public enum Item: Sendable, Equatable {
        case image(URL)
        case video(URL)
    }

    public private(set) var items: [Item] = []
    public private(set) var notes: [String] = []
    public private(set) var problems: [MarkerKitError] = []

    public static let imageExtensions: Set<String> = ["png", "jpg", "jpeg", "tif", "tiff", "bmp", "pgm", "ppm",
                                                      "pbm", "pnm", "webp", "jp2", "sr", "ras", "exr", "hdr"]
    public static let videoExtensions: Set<String> = ["avi", "mp4", "mkv", "mov", "webm", "mpg", "mpeg", "m4v",
                                                      "wmv", "ogv", "mjpeg", "mjpg"]

    public init(paths: [String]) {
        for path in paths {
            let url = URL(fileURLWithPath: path)
            switch PathKind.of(url.path) {
            case .missing:
                problems.append(.missingInput("cannot read '\(path)': no such file or folder"))
            case .folder:
                addFolder(url, as: path)
            case .file:
                items.append(Self.item(for: url))
            case .special(let what):
                problems.append(PathKind.notARegularFile(path, what))
            }
        }
    }

    static func item(for url: URL) -> Item {
        videoExtensions.contains(url.pathExtension.lowercased()) ? .video(url) : .image(url)
    }

    private mutating func addFolder(_ url: URL, as path: String) {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: url.path)
        } catch {
            problems.append(.missingInput("cannot read folder '\(path)': not readable"))
            return
        }
        var found = 0
        var skipped: [String] = []
        var special: [String] = []
        for name in names.sorted() where !name.hasPrefix(".") {
            let file = url.appendingPathComponent(name)
            let ext = file.pathExtension.lowercased()
            guard Self.imageExtensions.contains(ext) || Self.videoExtensions.contains(ext) else {
                skipped.append(name)
                continue
            }
            switch PathKind.of(file.path) {
            case .folder:
                skipped.append(name)
                continue
            case .special:
                special.append(name)
                continue
            case .missing, .file:
                break // a dangling link is named as missing when it is read
            }
            items.append(Self.item(for: file))
            found += 1
        }
        func listed(_ names: [String]) -> String {
            names.prefix(5).joined(separator: ", ") + (names.count > 5 ? ", ..." : "")
        }
        if !skipped.isEmpty {
            notes.append("skipped \(skipped.count) non-image entr\(skipped.count == 1 ? "y" : "ies") in '\(path)': \(listed(skipped))")
        }
        if !special.isEmpty {
            let files = special.count == 1 ? "1 special file" : "\(special.count) special files"
            notes.append("skipped \(files) (FIFO, socket or device; not opened) in '\(path)': \(listed(special))")
        }
        if found == 0 { problems.append(.missingInput("folder '\(path)' holds no images or videos")) }
    }
}

import Foundation

/// What a user named on the command line, sorted into image files and video files: folders are
/// expanded (sorted, non-images skipped with a note), missing paths and empty folders are problems.
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
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
                problems.append(.missingInput("cannot read '\(path)': no such file or folder"))
                continue
            }
            if isDirectory.boolValue { addFolder(url, as: path) } else { items.append(Self.item(for: url)) }
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
        for name in names.sorted() where !name.hasPrefix(".") {
            let file = url.appendingPathComponent(name)
            var isDirectory: ObjCBool = false
            _ = FileManager.default.fileExists(atPath: file.path, isDirectory: &isDirectory)
            let ext = file.pathExtension.lowercased()
            if isDirectory.boolValue || !(Self.imageExtensions.contains(ext) || Self.videoExtensions.contains(ext)) {
                skipped.append(name)
                continue
            }
            items.append(Self.item(for: file))
            found += 1
        }
        if !skipped.isEmpty {
            let shown = skipped.prefix(5).joined(separator: ", ") + (skipped.count > 5 ? ", ..." : "")
            notes.append("skipped \(skipped.count) non-image entr\(skipped.count == 1 ? "y" : "ies") in '\(path)': \(shown)")
        }
        if found == 0 { problems.append(.missingInput("folder '\(path)' holds no images or videos")) }
    }
}

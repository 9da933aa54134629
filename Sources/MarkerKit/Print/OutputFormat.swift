import Foundation

/// What a sheet is written as, chosen by the output file's extension.
public enum OutputFormat: String, CaseIterable, Sendable {
    case pdf, svg, png

    public init(for url: URL) throws {
        let ext = url.pathExtension.lowercased()
        guard let format = OutputFormat(rawValue: ext) else {
            let shown = ext.isEmpty ? "no extension" : "unknown extension '.\(ext)'"
            throw MarkerKitError.cannotWrite("cannot write '\(url.path)': \(shown) (use .pdf, .svg or .png)")
        }
        self = format
    }

    /// PDF holds every page; SVG and PNG hold one each: `sheet.svg`, `sheet-2.svg`, ...
    public var isMultiPage: Bool { self == .pdf }

    /// The file for each of `pageCount` pages (one file for PDF).
    public func files(for url: URL, pageCount: Int) -> [URL] {
        if isMultiPage || pageCount <= 1 { return [url] }
        let stem = url.deletingPathExtension().lastPathComponent
        let directory = url.deletingLastPathComponent()
        return (1...pageCount).map { page in
            page == 1 ? url : directory.appendingPathComponent("\(stem)-\(page).\(url.pathExtension)")
        }
    }
}

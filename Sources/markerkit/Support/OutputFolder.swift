import Foundation
import MarkerKit

/// A folder that a command writes into (detect --annotate, undistort -o, capture --out, render -o).
struct OutputFolder {
    let url: URL
    /// Made by this run, so that a run that ends with nothing written can take it back.
    let created: Bool

    /// The folder, made when missing and its parent exists; `option` names it in errors.
    init(_ path: String, option: String) throws {
        url = URL(fileURLWithPath: path)
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else { throw MarkerKitError.cannotWrite("\(option) '\(path)' is a file, not a folder") }
            created = false
            return
        }
        do {
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: false)
        } catch {
            throw MarkerKitError.cannotWrite("cannot create folder '\(path)' for \(option) (does its parent exist?)")
        }
        created = true
    }

    /// Takes the folder back if this run made it (and it is empty).
    func removeIfCreated() {
        if created { rmdir(url.path) }
    }
}

extension OutputFiles {
    /// Adds every page of `document`, rendered as `format`, at `url` (PDF: one file; PNG, SVG: one a page).
    mutating func add(_ document: SheetDocument, as format: OutputFormat, at url: URL, dpi: Double) throws {
        for (file, data) in zip(format.files(for: url, pageCount: document.pages.count), try naming("--dpi: ") { try document.render(as: format, dpi: dpi) }) {
            add(data, at: file)
        }
    }
}

/// A report file named by an option: its format from the extension, refused up front when it exists
/// (without --force) or cannot be written.
func reportDestination(_ path: String?, force: Bool) throws -> (url: URL, format: OutputFormat)? {
    guard let path else { return nil }
    let url = URL(fileURLWithPath: path)
    let format = try OutputFormat(for: url)
    try OutputFiles.checkDestination(url, force: force)
    return (url, format)
}

/// A file named by an option, or - for stdout (nil), checked up front.
func outputFile(_ path: String?, force: Bool) throws -> URL? {
    guard let path, path != "-" else { return nil }
    let url = URL(fileURLWithPath: path)
    try OutputFiles.checkDestination(url, force: force)
    return url
}

/// Writes `value` as JSON to `url`, atomically, and says so.
func writeJSON(_ value: some Encodable, to url: URL) throws {
    var files = OutputFiles()
    files.add(try JSONFile.encode(value, snakeCase: false), at: url)
    try files.commit()
    print("wrote \(url.relativePath)")
}

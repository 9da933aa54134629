import Foundation
import Testing
@testable import MarkerKit

/// A fresh directory per test, removed at the end.
final class TemporaryDirectory {
    let url: URL
    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("markerkit-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }
    deinit { try? FileManager.default.removeItem(at: url) }
    func file(_ name: String) -> URL { url.appendingPathComponent(name) }
}

/// Runs a tool from the machine (pdftoppm, pdfinfo, rsvg-convert); fails the test when it fails.
@discardableResult
func runTool(_ name: String, _ arguments: [String]) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = [name] + arguments
    let output = Pipe()
    process.standardOutput = output
    process.standardError = FileHandle.nullDevice
    try process.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else {
        throw MarkerKitError.internalFailure("\(name) \(arguments.joined(separator: " ")) exited \(process.terminationStatus)")
    }
    return String(decoding: data, as: UTF8.self)
}

/// Every page of a PDF as gray images at `dpi`, through poppler's pdftoppm.
func rasterizePDF(_ pdf: URL, dpi: Int, in directory: TemporaryDirectory) throws -> [GrayImage] {
    let prefix = directory.file("\(pdf.deletingPathExtension().lastPathComponent)-\(dpi)")
    try runTool("pdftoppm", ["-r", String(dpi), "-gray", pdf.path, prefix.path])
    let pages = try FileManager.default.contentsOfDirectory(atPath: directory.url.path)
        .filter { $0.hasPrefix(prefix.lastPathComponent + "-") && $0.hasSuffix(".pgm") }
        .sorted { pageNumber($0) < pageNumber($1) }
    return try pages.map { try GrayImage(contentsOf: directory.file($0)) }
}

private func pageNumber(_ file: String) -> Int {
    Int(file.dropLast(4).split(separator: "-").last ?? "") ?? 0
}

/// Page sizes of a PDF in mm, through poppler's pdfinfo.
func pdfPageSizes(_ pdf: URL) throws -> [(width: Double, height: Double)] {
    let info = try runTool("pdfinfo", ["-f", "1", "-l", "9999", pdf.path])
    return info.split(separator: "\n").filter { $0.hasPrefix("Page") && $0.contains("size:") }.map { line in
        let numbers = line.split(separator: ":")[1].split(separator: " ").compactMap { Double($0) }
        return (numbers[0] / 72 * 25.4, numbers[1] / 72 * 25.4)
    }
}

/// Side of a detected marker in mm at `dpi`: mean of its four sides.
func sideInMillimetres(_ marker: MarkerDetection, dpi: Double) -> Double {
    marker.meanSide / dpi * 25.4
}

/// Writes `document` as `format` into `directory`, the way the CLI does.
func write(_ document: SheetDocument, as name: String, in directory: TemporaryDirectory, dpi: Double = 300) throws -> [URL] {
    let url = directory.file(name)
    let format = try OutputFormat(for: url)
    let pages = try document.render(as: format, dpi: dpi)
    var files = OutputFiles()
    for (file, data) in zip(format.files(for: url, pageCount: pages.count), pages) { files.add(data, at: file) }
    return try files.commit()
}

import ArgumentParser
import Foundation
import MarkerKit

/// --json, --plot and --force of the commands that compute a map over the image (`calibrations
/// uncertainty`, `calibrations compare`): both destinations checked before any work, both written at the end.
struct FigureOutputOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Write the figures as JSON.", valueName: "file")) var json: String?
    @Option(help: ArgumentHelp("Plot the map with contours (.pdf, .png, .svg).", valueName: "file")) var plot: String?
    @Flag(help: "Replace existing output files.") var force = false

    /// The checked destinations.
    func destinations() throws -> (json: URL?, plot: (url: URL, format: OutputFormat)?) {
        (try outputFile(json, force: force), try reportDestination(plot, force: force))
    }

    /// Writes what was asked for, all or nothing, and says so.
    func write(_ value: some Encodable, plot document: () throws -> SheetDocument,
               to destinations: (json: URL?, plot: (url: URL, format: OutputFormat)?)) throws {
        var files = OutputFiles()
        if let url = destinations.json { files.add(try JSONFile.encode(value), at: url) }
        if let (url, format) = destinations.plot { try files.add(document(), as: format, at: url, dpi: 150) }
        for url in try files.commit() { print("wrote \(url.relativePath)") }
    }
}

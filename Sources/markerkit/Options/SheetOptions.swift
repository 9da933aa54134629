import ArgumentParser
import Foundation
import MarkerKit

/// Options every sheet shares: page, orientation, margin, resolution and output file.
struct SheetOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Page: A0-A5, Letter, Legal, Tabloid, or WxH with a unit (200x300mm) (default: A4).", valueName: "page"),
            transform: PageSize.init(parsing:))
    var page: PageSize?

    @Flag(help: "Turn the page to landscape.")
    var landscape = false

    @Option(help: ArgumentHelp("Blank border of the page, with a unit (default: 10mm).", valueName: "length"), transform: LengthArgument.nonNegative)
    var margin = Length.mm(10)

    @Option(help: ArgumentHelp("Resolution of PNG output, in dots per inch, 10-4800 (stored in the file).", valueName: "dpi"))
    var dpi: Double = 300

    @Option(name: .shortAndLong, help: ArgumentHelp("Output file: .pdf (all pages), .svg or .png (one file per page: name.svg, name-2.svg, ...).", valueName: "file"))
    var output: String

    @Flag(help: "Replace output files that exist.")
    var force = false

    func pageSize() throws -> PageSize {
        let size = try page ?? PageSize(parsing: "a4")
        return landscape ? size.landscape : size
    }

    func destination() throws -> (url: URL, format: OutputFormat) {
        try Self.destination(output: output, dpi: dpi, force: force)
    }

    /// The output file and its format, checked before any drawing so that nothing is drawn in vain.
    static func destination(output: String, dpi: Double, force: Bool) throws -> (url: URL, format: OutputFormat) {
        let url = URL(fileURLWithPath: output)
        let format = try OutputFormat(for: url)
        try InputRange.check(dpi, in: SheetDocument.resolutions, "--dpi")
        try OutputFiles.checkDestination(url, force: force)
        return (url, format)
    }
}

/// `--spec-only`: a board you already own, described by its spec alone: no page, so nothing to fit.
struct SpecOnlyOption: ParsableArguments {
    @Flag(help: "Write only the board spec (-o board.json, lengths in mm) for a board you already own: no page is drawn, so the board need not fit one.")
    var specOnly = false

    /// Checks the options that only a page takes are absent.
    func validate(_ sheet: SheetOptions) throws {
        guard specOnly else { return }
        if sheet.page != nil || sheet.landscape { throw ValidationError("--spec-only draws no page: leave out --page and --landscape") }
    }

    /// Writes `spec` to -o (a .json file), replacing a file only with --force.
    func write(_ spec: BoardSpec, to output: String, force: Bool, summary: String) throws {
        let url = URL(fileURLWithPath: output)
        guard url.pathExtension.lowercased() == "json" else {
            throw MarkerKitError.cannotWrite("--spec-only writes the board spec as JSON: give -o NAME.json, not '\(output)'")
        }
        try OutputFiles.checkDestination(url, force: force)
        var files = OutputFiles()
        files.add(try spec.encoded(), at: url)
        for url in try files.commit() { print("wrote \(url.path)") }
        print(summary)
    }

    /// A sheet that does not fit says how to describe a board already owned.
    static func hinted<T>(_ make: () throws -> T) throws -> T {
        do {
            return try make()
        } catch MarkerKitError.invalidArgument(let message) where message.contains("does not fit") {
            throw MarkerKitError.invalidArgument(message + "; for a board you already own, write only its spec with --spec-only")
        }
    }
}

extension SheetDocument {
    /// Renders and writes every page atomically; prints where the files went.
    func write(to destination: (url: URL, format: OutputFormat), dpi: Double, extra: [(URL, Data)] = [],
               summary: String) throws {
        let pages = try naming("--dpi: ") { try render(as: destination.format, dpi: dpi) }
        var files = OutputFiles()
        for (url, data) in zip(destination.format.files(for: destination.url, pageCount: pages.count), pages) {
            files.add(data, at: url)
        }
        for (url, data) in extra { files.add(data, at: url) }
        for url in try files.commit() { print("wrote \(url.path)") }
        print(summary)
    }
}

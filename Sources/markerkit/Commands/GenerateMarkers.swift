import ArgumentParser
import MarkerKit

struct GenerateMarkers: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "markers",
        abstract: "A sheet of markers, as many per page as fit, more pages when needed.",
        discussion: """
        Each marker keeps a white quiet zone of one cell (side/7) and a label with its ID and size. \
        IDs whose reading is ambiguous (in aruco-original 1023, and pairs one cell apart when turned \
        180 degrees; in each dictionary the IDs one cell beyond what it corrects from another reading) \
        are left out of ranges unless --include-ambiguous; an ID named on its own is always printed. \
        Beside the sheet goes each page's marker map (NAME.json, NAME-2.json, ...): every marker's corners \
        on the page in mm, for one pose of the whole page (docs/FORMATS.md).

        Examples:
          markerkit generate markers --ids 0-23 --size 40mm -o sheet.pdf
          markerkit generate markers --ids 3,7,100-120 --size 1.5in --cut-marks -o s.pdf
          markerkit generate markers --ids 0-5 --size 50mm --dpi 600 -o sheet.png
          markerkit generate markers --ids 0-49 --size 30mm --dictionary 5x5_50 -o sheet.pdf
        """
    )

    @Option(help: ArgumentHelp("Marker IDs: a list and ranges, such as 3,7,100-120 (0-1023 in aruco-original).", valueName: "ids"))
    var ids: String

    @OptionGroup var dictionaryOption: DictionaryOption

    @Option(help: ArgumentHelp("Side of the outer black square, with a unit (40mm, 1.5in).", valueName: "length"), transform: LengthArgument.positive)
    var size: Length

    @Option(help: ArgumentHelp("Space between neighbouring markers' boxes (quiet zone and label), with a unit (default: 10mm).", valueName: "length"),
            transform: LengthArgument.nonNegative)
    var gap = Length.mm(10)

    @Flag(help: "Leave out the label under each marker.")
    var noLabels = false

    @Flag(help: "Draw dashed cut lines around each marker, outside its quiet zone.")
    var cutMarks = false

    @Flag(help: "Keep ambiguous IDs that fall inside a range.")
    var includeAmbiguous = false

    @OptionGroup var sheet: SheetOptions

    func run() throws {
        let selection = try naming("--ids ") { try IDSelection(parsing: ids, dictionary: dictionaryOption.dictionary) }
        let side = size
        let destination = try sheet.destination()
        let (kept, dropped) = selection.printable(includeAmbiguous: includeAmbiguous)
        if !dropped.isEmpty {
            note("left out ambiguous ID\(dropped.count == 1 ? "" : "s") \(IDRanges.describe(dropped)) (orientation cannot be trusted; --include-ambiguous keeps them)")
        }
        guard !kept.isEmpty else { throw MarkerKitError.invalidArgument("--ids '\(ids)' leaves no marker to print") }
        var markerSheet = MarkerSheet(ids: kept, side: side, page: try sheet.pageSize(), margin: sheet.margin, gap: gap)
        markerSheet.labels = !noLabels
        markerSheet.cutMarks = cutMarks
        markerSheet.dictionary = dictionaryOption.dictionary
        let layout = try markerSheet.layout()
        let pages = (kept.count + layout.perPage - 1) / layout.perPage
        // Each page's marker map (for --board on detect and track) beside it.
        let maps = layout.maps(for: kept, dictionary: dictionaryOption.dictionary)
        let mapFiles = MarkerMap.files(besides: destination.url, pages: maps.count)
        for url in mapFiles { try OutputFiles.checkDestination(url, force: sheet.force) }
        try markerSheet.document().write(
            to: destination, dpi: sheet.dpi, extra: try zip(mapFiles, maps).map { ($0, try $1.encoded()) },
            summary: "\(counted(kept.count, "marker")) of \(dictionaryOption.dictionary.name), \(side), \(layout.perPage) per page on \(counted(pages, "page")) of \(layout.page)")
    }
}

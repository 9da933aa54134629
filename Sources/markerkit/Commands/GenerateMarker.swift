import ArgumentParser
import MarkerKit

struct GenerateMarker: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "marker",
        abstract: "One marker, on the smallest page that holds it with its quiet zone, or on --page.",
        discussion: """
        Examples:
          markerkit generate marker 213 --size 50mm -o m213.pdf
          markerkit generate marker 7 --size 100mm --page a4 -o m7.pdf
          markerkit generate marker 42 --size 60mm --dictionary 5x5_100 -o m42.pdf
        """
    )

    @Argument(help: "Marker ID: 0-1023 in aruco-original, 0 to the size less one in the others (0-49 in 5x5_50, 0-586 in apriltag_36h11).")
    var id: Int

    @OptionGroup var dictionaryOption: DictionaryOption
    @OptionGroup var forceOption: ForceOption

    @Option(help: ArgumentHelp("Side of the outer black square, with a unit (50mm, 2in).", valueName: "length"), transform: LengthArgument.positive)
    var size: Length

    @Option(help: ArgumentHelp("Page: A0-A5, Letter, Legal, Tabloid or WxH with a unit; default: just large enough.", valueName: "page"),
            transform: PageSize.init(parsing:))
    var page: PageSize?

    @Flag(help: "Turn the page to landscape (with --page).")
    var landscape = false

    @Option(help: ArgumentHelp("Blank border of the page (with --page), with a unit (default: 10mm).", valueName: "length"), transform: LengthArgument.nonNegative)
    var margin = Length.mm(10)

    @Flag(help: "Leave out the label.")
    var noLabels = false

    @Option(help: ArgumentHelp("Resolution of PNG output, in dots per inch, 10-4800 (stored in the file).", valueName: "dpi"))
    var dpi: Double = 300

    @Option(name: .shortAndLong, help: ArgumentHelp("Output file: .pdf, .svg or .png.", valueName: "file"))
    var output: String

    func run() throws {
        let dictionary = dictionaryOption.dictionary
        guard dictionary.contains(id) else {
            throw MarkerKitError.invalidArgument("marker ID \(id) is outside 0-\(dictionary.count - 1) of \(dictionary.name)")
        }
        let side = size
        let destination = try SheetOptions.destination(output: output, dpi: dpi, force: forceOption.force)
        for ambiguity in dictionary.ambiguities where ambiguity.id == id {
            note("ID \(ambiguity)")
        }
        let document: SheetDocument
        if let size = page {
            var sheet = MarkerSheet(ids: [id], side: side, page: landscape ? size.landscape : size,
                                    margin: margin, gap: .mm(0))
            sheet.dictionary = dictionary
            sheet.labels = !noLabels
            document = try sheet.document()
        } else {
            document = try MarkerSheet.singleMarker(id: id, side: side, labels: !noLabels, dictionary: dictionary)
        }
        try document.write(to: destination, dpi: dpi,
                           summary: "marker \(id) of \(dictionary.name), \(side), on \(document.pages[0].size)")
    }
}

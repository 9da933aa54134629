import ArgumentParser
import MarkerKit

struct GenerateDictionary: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dictionary",
        abstract: "Every marker of a dictionary (DICT_ARUCO_ORIGINAL by default), labelled, the ambiguous ones marked in red.",
        discussion: """
        Examples:
          markerkit generate dictionary -o all.pdf
          markerkit generate dictionary --size 20mm --page a3 -o all.pdf
          markerkit generate dictionary --dictionary 5x5_250 -o 5x5_250.pdf
        """
    )

    @Option(help: ArgumentHelp("Side of each marker's outer black square, with a unit (default: 15mm).", valueName: "length"), transform: LengthArgument.positive)
    var size = Length.mm(15)

    @Option(help: ArgumentHelp("Space between neighbouring markers' boxes, with a unit (default: 4mm).", valueName: "length"), transform: LengthArgument.nonNegative)
    var gap = Length.mm(4)

    @OptionGroup var sheet: SheetOptions
    @OptionGroup var dictionaryOption: DictionaryOption

    func run() throws {
        let side = size
        let destination = try sheet.destination()
        let dictionary = dictionaryOption.dictionary
        var markerSheet = MarkerSheet(ids: Array(0..<dictionary.count), side: side, page: try sheet.pageSize(),
                                      margin: sheet.margin, gap: gap)
        markerSheet.markAmbiguous = true
        markerSheet.dictionary = dictionary
        let document = try markerSheet.document()
        try document.write(
            to: destination, dpi: sheet.dpi,
            summary: "\(dictionary.count) markers of \(dictionary.name), \(side), on \(document.pages.count) pages; ambiguous (red): \(IDRanges.describe(dictionary.ambiguousIDs.sorted()))")
    }
}

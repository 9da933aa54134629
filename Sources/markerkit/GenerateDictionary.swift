import ArgumentParser
import MarkerKit

struct GenerateDictionary: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dictionary",
        abstract: "All 1024 markers of DICT_ARUCO_ORIGINAL, labelled, the ambiguous ones marked in red.",
        discussion: """
        Examples:
          markerkit generate dictionary -o all.pdf
          markerkit generate dictionary --size 20mm --page a3 -o all.pdf
        """
    )

    @Option(help: ArgumentHelp("Side of each marker's outer black square, with a unit.", valueName: "length"))
    var size = "15mm"

    @Option(help: ArgumentHelp("Space between neighbouring markers' boxes, with a unit.", valueName: "length"))
    var gap = "4mm"

    @OptionGroup var sheet: SheetOptions

    func run() throws {
        let side = try Length.positive(size, what: "--size")
        let destination = try sheet.destination()
        let dictionary = MarkerDictionary.arucoOriginal
        var markerSheet = MarkerSheet(ids: Array(0..<dictionary.count), side: side, page: try sheet.pageSize(),
                                      margin: try sheet.marginLength(), gap: try Length.nonNegative(gap, what: "--gap"))
        markerSheet.markAmbiguous = true
        let document = try markerSheet.document()
        try document.write(
            to: destination, dpi: sheet.dpi,
            summary: "\(dictionary.count) markers of \(side) on \(document.pages.count) pages; ambiguous (red): \(IDRanges.describe(MarkerDictionary.ambiguousIDs.sorted()))")
    }
}

import ArgumentParser
import Foundation
import MarkerKit

struct GenerateDiamond: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "diamond",
        abstract: "A ChArUco diamond (four markers in a 3x3 chessboard, named by their IDs), as OpenCV's drawCharucoDiamond draws it.",
        discussion: """
        --ids are the markers of the top, left, right and bottom squares, in OpenCV's order; any four of the \
        dictionary, repeated or not, each set a different diamond. OpenCV's detectCharucoDiamond reads it with \
        squareMarkerLengthRate = square / marker. The diamond's corners are its four inner chessboard corners.

        Examples:
          markerkit generate diamond --ids 45,68,28,74 --square 40mm --marker 24mm -o diamond.pdf
          markerkit generate diamond --ids 0,1,2,3 --square 1in --marker 0.6in --dictionary 6x6_250 -o d.png
        """
    )

    @Option(help: ArgumentHelp("The four marker IDs: top,left,right,bottom.", valueName: "a,b,c,d"), transform: CharucoDiamond.parseIDs)
    var ids: [Int]

    @Option(help: ArgumentHelp("Side of one square, with a unit (40mm, 1.5in).", valueName: "length"), transform: LengthArgument.positive)
    var square: Length

    @Option(help: ArgumentHelp("Side of one marker, with a unit; smaller than the square.", valueName: "length"), transform: LengthArgument.positive)
    var marker: Length

    @OptionGroup var dictionaryOption: DictionaryOption

    @OptionGroup var sheet: SheetOptions

    func run() throws {
        let diamond = try CharucoDiamond(ids: ids, square: square, marker: marker, dictionary: dictionaryOption.dictionary)
        let destination = try sheet.destination()
        let placed = try DiamondSheet(diamond: diamond, page: try sheet.pageSize(), margin: sheet.margin)
        try placed.document().write(to: destination, dpi: sheet.dpi,
                                    summary: "ChArUco diamond \(diamond.summary), \(diamond.side) a side on \(placed.page)")
    }
}

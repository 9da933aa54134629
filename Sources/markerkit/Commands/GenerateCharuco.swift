import ArgumentParser
import Foundation
import MarkerKit

struct GenerateCharuco: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "charuco",
        abstract: "A ChArUco board (markers in the white squares of a chessboard), laid out as OpenCV's CharucoBoard.",
        discussion: """
        --squares counts squares, COLUMNSxROWS, as OpenCV's CharucoBoard does (5x7: 4x6 corners). Markers \
        go in the white squares, numbered row by row from the top left from --first-id; boards with an \
        even number of rows are laid out as OpenCV 4.6 and later lay them out, --legacy for the older \
        layout. Next to the output goes the board spec NAME.json. A board you already own needs only its \
        spec: --spec-only -o board.json writes that and no page.

        Examples:
          markerkit generate charuco --squares 5x7 --square 40mm --marker 20mm --page a3 -o charuco.pdf
          markerkit generate charuco --squares 8x11 --square 20mm --marker 15mm --dictionary 5x5_100 -o c.pdf
          markerkit generate charuco --squares 5x7 --square 40mm --marker 20mm --dictionary 5x5_1000 --spec-only -o board.json
        """
    )

    @Option(help: ArgumentHelp("Squares, COLUMNSxROWS (2-100 each).", valueName: "cols x rows"), transform: SquareCount.parse)
    var squares: SquareCount

    @Option(help: ArgumentHelp("Side of one square, with a unit (40mm, 1.5in).", valueName: "length"), transform: LengthArgument.positive)
    var square: Length

    @Option(help: ArgumentHelp("Side of one marker, with a unit; smaller than the square.", valueName: "length"), transform: LengthArgument.positive)
    var marker: Length

    @OptionGroup var dictionaryOption: DictionaryOption

    @Option(help: ArgumentHelp("ID of the first marker: 0 up to the dictionary's size less the board's markers.", valueName: "id"))
    var firstId = 0

    @Flag(help: "The layout of OpenCV before 4.6 for boards with an even number of rows.")
    var legacy = false

    @OptionGroup var sheet: SheetOptions

    @OptionGroup var specOnly: SpecOnlyOption

    func validate() throws { try specOnly.validate(sheet) }

    func run() throws {
        let board = try CharucoBoard(squaresX: squares.columns, squaresY: squares.rows, square: square, marker: marker,
                                     dictionary: dictionaryOption.dictionary, firstID: firstId, legacy: legacy)
        if specOnly.specOnly {
            return try specOnly.write(BoardSpec(charuco: board), to: sheet.output, force: sheet.force,
                                      summary: "ChArUco board \(board.summary), \(board.width) x \(board.height): spec only, no page")
        }
        let destination = try sheet.destination()
        let placed = try SpecOnlyOption.hinted { try CharucoSheet(board: board, page: try sheet.pageSize(), margin: sheet.margin) }
        let specURL = destination.url.deletingPathExtension().appendingPathExtension("json")
        try OutputFiles.checkDestination(specURL, force: sheet.force)
        try placed.document().write(
            to: destination, dpi: sheet.dpi, extra: [(specURL, try placed.spec().encoded())],
            summary: "ChArUco board \(board.summary), \(board.width) x \(board.height) on \(placed.page)")
    }
}

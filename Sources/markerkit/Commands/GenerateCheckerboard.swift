import ArgumentParser
import Foundation
import MarkerKit

struct GenerateCheckerboard: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "checkerboard",
        abstract: "A chessboard calibration target, centred, with a white border of at least one square.",
        discussion: """
        --inner counts inner corners as OpenCV does: 9x6 gives 10x7 squares. The page turns to \
        landscape by itself when the board fits only that way (--portrait or --landscape to force \
        one). Next to the output goes the board spec NAME.json that calibration reads. A board you already \
        own needs only its spec: --spec-only -o board.json writes that and no page.

        Examples:
          markerkit generate checkerboard --inner 9x6 --square 20mm -o board.pdf
          markerkit generate checkerboard --inner 9x6 --square 25mm --page a3 -o b.pdf
          markerkit generate checkerboard --inner 9x6 --square 30mm --spec-only -o board.json
        """
    )

    @Option(help: ArgumentHelp("Inner corners, COLUMNSxROWS (9x6 means 10x7 squares).", valueName: "cols x rows"), transform: InnerCorners.parse)
    var inner: InnerCorners

    @Option(help: ArgumentHelp("Side of one square, with a unit (25mm, 1in).", valueName: "length"), transform: LengthArgument.positive)
    var square: Length

    @Flag(help: "Keep the page upright even if the board would fit only turned.")
    var portrait = false

    @OptionGroup var sheet: SheetOptions

    @OptionGroup var specOnly: SpecOnlyOption

    func validate() throws {
        if portrait && sheet.landscape { throw ValidationError("--portrait and --landscape exclude each other") }
        if portrait && specOnly.specOnly { throw ValidationError("--spec-only draws no page: leave out --portrait") }
        try specOnly.validate(sheet)
    }

    func run() throws {
        let board = try Checkerboard(innerColumns: inner.columns, innerRows: inner.rows, square: square)
        if specOnly.specOnly {
            return try specOnly.write(BoardSpec(board: board), to: sheet.output, force: sheet.force,
                                      summary: "checkerboard \(board.summary), \(board.width) x \(board.height): spec only, no page")
        }
        let destination = try sheet.destination()
        let orientation: Bool? = sheet.landscape ? true : (portrait ? false : nil)
        let placed = try SpecOnlyOption.hinted {
            try CheckerboardSheet(board: board, page: try sheet.page ?? PageSize(parsing: "a4"), margin: sheet.margin, turn: orientation)
        }
        if board.isSymmetric {
            note("a \(board.squareColumns)x\(board.squareRows)-square board looks the same turned 180°, so its orientation is ambiguous; one odd and one even square count avoids that")
        }
        let specURL = destination.url.deletingPathExtension().appendingPathExtension("json")
        try placed.document().write(
            to: destination, dpi: sheet.dpi, extra: [(specURL, try placed.spec().encoded())],
            summary: "checkerboard \(board.summary), \(board.width) x \(board.height) on \(placed.page)")
    }
}

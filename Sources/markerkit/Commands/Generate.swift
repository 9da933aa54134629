import ArgumentParser

struct Generate: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Draw printable markers and checkerboards at exact physical size (PDF, SVG, PNG).",
        discussion: """
        PDF is vector and the safest to print; print at 100% ("actual size"), never "fit to page", \
        and check the scale bar with a ruler. SVG pages are declared in mm. PNG files store their \
        resolution (--dpi), so printing at 100% gives the true size.

        Examples:
          markerkit generate markers --ids 0-23 --size 40mm -o sheet.pdf
          markerkit generate marker 213 --size 50mm -o m213.svg
          markerkit generate checkerboard --inner 9x6 --square 20mm -o board.pdf
          markerkit generate charuco --squares 5x7 --square 40mm --marker 20mm --page a3 -o charuco.pdf
          markerkit generate diamond --ids 45,68,28,74 --square 40mm --marker 24mm -o diamond.pdf
          markerkit generate dictionary -o all.pdf
        """,
        subcommands: [GenerateMarkers.self, GenerateMarker.self, GenerateCheckerboard.self, GenerateCharuco.self, GenerateDiamond.self,
                      GenerateDictionary.self]
    )
}

import ArgumentParser
import Foundation
import MarkerKit

/// A distance along a ray with a unit, or "inf" for points at infinity.
enum RangeArgument {
    static func parse(_ text: String) throws -> Length? {
        if ["inf", "infinity"].contains(text.lowercased()) { return nil }
        return try Length.positive(text)
    }
}

/// Points across and down: "16x9", each 2-200 (the rule is UncertaintyMap's).
enum GridArgument {
    static func parse(_ text: String) throws -> (columns: Int, rows: Int) { try UncertaintyMap.parseGrid(text) }
}

extension Calibrations {
    struct Uncertainty: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "How far off a projection through a calibration can be, over its image (mrcal's projection uncertainty).",
            discussion: """
            For each point of a grid over the image: the point the pixel sees (at --range along its ray, or at \
            infinity) is projected through the calibration as it would come out if the calibration were redone \
            on the same views with new corner noise; printed is the standard deviation of that projection in its \
            worst direction (px). The noise is the calibration's own (its residuals), the views' pose errors \
            are included as mrcal includes them (the mean of the boards' frames). Large values where no board \
            was held: take views there. Needs a calibration made by 'markerkit calibrate' (it stores the \
            covariance; json and opencv-yaml/xml exports keep it).

            Examples:
              markerkit calibrations uncertainty webcam
              markerkit calibrations uncertainty webcam --range 2m --grid 32x18 --json u.json --plot u.pdf
            """)
        @Argument(help: "A stored name or a calibration file.") var name: String
        @Option(help: ArgumentHelp("Distance along each pixel's ray with a unit (2m, 500mm), or inf.", valueName: "length|inf"),
                transform: RangeArgument.parse)
        var range: Length?? = nil
        @Option(help: ArgumentHelp("Points across and down the image, 2-200 each (default 16x9).", valueName: "CxR"), transform: GridArgument.parse)
        var grid: (columns: Int, rows: Int)?
        @OptionGroup var output: FigureOutputOptions

        func run() throws {
            let destinations = try output.destinations()
            let calibration = try CalibrationStore.default.resolve(name)
            let uncertainty = try ProjectionUncertainty(calibration)
            let map = try UncertaintyMap(uncertainty, columns: grid?.columns ?? UncertaintyMap.summaryGrid.columns, rows: grid?.rows ?? UncertaintyMap.summaryGrid.rows, range: (range ?? nil)?.millimetres)
            print(map.table)
            try output.write(map, plot: { try UncertaintyPlot(uncertainty: uncertainty, range: map.range).document() }, to: destinations)
        }
    }
}

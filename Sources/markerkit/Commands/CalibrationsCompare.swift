import ArgumentParser
import Foundation
import MarkerKit

extension Calibrations {
    struct Compare: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "How differently two calibrations of one camera project, over the image (mrcal's projection difference).",
            discussion: """
            Pixels on a grid are taken back through A to points (at --range along their rays, or at infinity), \
            the rotation (and at a range the translation) between A's and B's camera frames that best maps them \
            onto B's rays is fitted and removed, and each point is projected through B: printed is how far it \
            lands from its pixel (px). Two calibrations of one camera that agree differ by about their \
            projection uncertainty ('calibrations uncertainty'); much more means one of them is off, or the lens \
            model cannot follow the lens. The fit is weighted by both calibrations' uncertainty when both carry \
            it, else made over the middle of the image. Both must be for the same image size.

            Examples:
              markerkit calibrations compare monday tuesday
              markerkit calibrations compare webcam webcam-charuco --range 1m --json diff.json --plot diff.pdf
            """)
        @Argument(help: "The first calibration: a stored name or a file.") var first: String
        @Argument(help: "The second calibration.") var second: String
        @Option(help: ArgumentHelp("Distance along each pixel's ray with a unit (2m, 500mm), or inf.", valueName: "length|inf"),
                transform: RangeArgument.parse)
        var range: Length?? = nil
        @Option(help: ArgumentHelp("Points across the image, 2-400 (rows follow its aspect).", valueName: "n")) var columns = 60
        @OptionGroup var output: FigureOutputOptions

        func run() throws {
            try InputRange.check(columns, in: ComparisonReport.columnCounts, "--columns")
            let destinations = try output.destinations()
            let store = CalibrationStore.default
            let difference = try ProjectionDifference(store.resolve(first), store.resolve(second))
            let report = try ComparisonReport(difference, columns: columns, range: (range ?? nil)?.millimetres)
            print(report.summary)
            try output.write(report, plot: report.document, to: destinations)
        }
    }
}

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
            covariance; json and opencv-yaml/xml exports keep it). For a rig (calibrate --rig): the triangulation \
            uncertainty of a point straight ahead of each pair at --range (default 0.5, 1, 2 and 5 m), along the \
            line of sight and across it, from the calibration and from the noise of the point's two pixels.

            Examples:
              markerkit calibrations uncertainty webcam
              markerkit calibrations uncertainty webcam --range 2m --grid 32x18 --json u.json --plot u.pdf
              markerkit calibrations uncertainty stereo --range 1.5m
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
            let calibration: CameraCalibration
            switch try CalibrationStore.default.resolveEntry(name) {
            case .camera(let c): calibration = c
            case .rig(let rig): return try runRig(rig, destinations: destinations)
            }
            let uncertainty = try ProjectionUncertainty(calibration)
            let map = try UncertaintyMap(uncertainty, columns: grid?.columns ?? UncertaintyMap.summaryGrid.columns, rows: grid?.rows ?? UncertaintyMap.summaryGrid.rows, range: (range ?? nil)?.millimetres)
            print(map.table)
            try output.write(map, plot: { try UncertaintyPlot(uncertainty: uncertainty, range: map.range).document() }, to: destinations)
        }

        private func runRig(_ rig: CameraRig, destinations: (json: URL?, plot: (url: URL, format: OutputFormat)?)) throws {
            guard destinations.plot == nil, grid == nil else { throw ValidationError("--plot and --grid map one camera; a rig's uncertainty is a table (--json writes it)") }
            let distances = try (range ?? nil).map { length -> [Double] in
                guard let unit = Length.Unit(rawValue: rig.units) else { throw MarkerKitError.invalidArgument("--range: the rig's lengths are in '\(rig.units)', not a unit MarkerKit knows") }
                return [length.value(in: unit)]
            }
            let table = try RigUncertaintyTable(rig, distances: distances)
            print(table.table)
            if let url = destinations.json {
                var files = OutputFiles()
                files.add(try JSONFile.encode(table), at: url)
                for written in try files.commit() { print("wrote \(written.relativePath)") }
            }
        }
    }
}

import ArgumentParser
import Foundation
import MarkerKit

struct Calibrations: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "The calibration store: list, show, export to other tools' formats, import.",
        discussion: """
        Formats: \(CalibrationFormat.described). A format that cannot express a calibration (Kalibr without \
        k3, mrcal without fisheye) says so instead of dropping terms. The store is $MARKERKIT_CALIBRATIONS, \
        else Calibrations/ in the working folder when it has one, else $XDG_DATA_HOME/markerkit/calibrations \
        (~/.local/share/markerkit/calibrations); `list` says which. A bare NAME is looked up in the store only; an argument with a / or a calibration file's extension (./webcam, cam.yaml) is a file. \
        Names: letters, digits, - _ . (any script, taken in Unicode NFC), at most 100 bytes, nothing invisible.

        Examples:
          markerkit calibrations list
          markerkit calibrations show webcam
          markerkit calibrations export webcam --format ros -o webcam_camera_info.yaml
          markerkit calibrations import camchain.yaml --name webcam2 --format kalibr
        """,
        subcommands: [List.self, Show.self, Export.self, Import.self, Uncertainty.self, Compare.self]
    )

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Every stored calibration, one line each.",
                                                        discussion: "Example:\n  markerkit calibrations list")
        func run() throws {
            let store = CalibrationStore.default
            let names = store.names()
            print("\(names.isEmpty ? "no calibrations" : names.count == 1 ? "1 calibration" : "\(names.count) calibrations") in \(store.whereabouts)")
            for name in names {
                do {
                    let c = try store.resolve(name)
                    let rms = c.provenance.map { String(format: ", RMS %.3f px, %d views", $0.rms, $0.views) } ?? ""
                    print(String(format: "%@  %@ %dx%d, fx %.1f fy %.1f%@", name, c.model.rawValue, c.imageWidth, c.imageHeight, c.fx, c.fy, rms))
                } catch let error as MarkerKitError {
                    print("\(name)  unreadable: \(error.description)")
                }
            }
        }
    }

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "One calibration in full.",
                                                        discussion: "Example:\n  markerkit calibrations show webcam")
        @Argument(help: "A stored name or a calibration file.") var name: String
        func run() throws {
            let c = try CalibrationStore.default.resolve(name)
            for line in CalibrationSummary.lines(for: c) { print(line) }
        }
    }

    struct Export: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write a calibration in another tool's format.",
            discussion: "Example:\n  markerkit calibrations export webcam --format colmap -o cameras.txt")
        @Argument(help: "A stored name or a calibration file.") var name: String
        @Option(help: ArgumentHelp("The format to write.", valueName: "format")) var format: CalibrationFormat
        @Option(name: .shortAndLong, help: ArgumentHelp("Output file.", valueName: "file")) var output: String
        @Flag(help: "Replace an existing file.") var force = false
        func run() throws {
            let chosen = format
            let url = URL(fileURLWithPath: output)
            try OutputFiles.checkDestination(url, force: force)
            let c = try CalibrationStore.default.resolve(name)
            try OutputFiles.writeProtected(try chosen.encode(c), to: url, force: force)
            print("wrote \(url.relativePath) (\(chosen.rawValue))")
        }
    }

    struct Import: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Store a calibration file from another tool under a name.",
            discussion: "Example:\n  markerkit calibrations import camera_info.yaml --name webcam --format ros")
        @Argument(help: "The calibration file.") var file: String
        @Option(help: ArgumentHelp("Name in the store.", valueName: "name")) var name: String
        @Option(help: ArgumentHelp("The file's format (default: recognised from its extension and content).", valueName: "format")) var format: CalibrationFormat?
        @Flag(help: "Replace an existing calibration of that name.") var force = false
        func run() throws {
            let name = try naming("--name: ") { try CalibrationStore.normalized(name: self.name) }
            let chosen = format
            var c = try CameraCalibration.read(from: URL(fileURLWithPath: file), format: chosen)
            c.name = name
            let stored = try CalibrationStore.default.save(c, force: force)
            print("stored \(stored.path)")
            for line in CalibrationSummary.lines(for: c) { print(line) }
        }
    }
}

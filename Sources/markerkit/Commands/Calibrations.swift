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
                    if store.isRig(named: name) {
                        let rig = try store.resolveRig(name)
                        let cams = rig.cameras.map { "\($0.name) \($0.model.rawValue) \($0.imageWidth)x\($0.imageHeight)" }.joined(separator: ", ")
                        print(String(format: "%@  rig of %d cameras (%@), baseline %.3f %@", name, rig.cameras.count, cams, rig.baseline(of: 1), rig.units))
                        continue
                    }
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
        static let configuration = CommandConfiguration(abstract: "One calibration or rig in full (a rig: each camera, the poses with their sigma, the rectified pair).",
                                                        discussion: "Example:\n  markerkit calibrations show webcam")
        @Argument(help: "A stored name or a calibration file.") var name: String
        func run() throws {
            switch try CalibrationStore.default.resolveEntry(name) {
            case .camera(let c): for line in CalibrationSummary.lines(for: c) { print(line) }
            case .rig(let rig): for line in RigSummary.lines(for: rig) { print(line) }
            }
        }
    }
}

import ArgumentParser
import Foundation
import MarkerKit

extension Calibrations {
    struct Import: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Store a calibration or a rig from another tool's files under a name.",
            discussion: """
            One file: a camera (\(CalibrationFormat.names)), or a rig in opencv-stereo (M1 D1 M2 D2 R T), a Kalibr \
            camchain with cam1 or a MarkerKit rig file. Several files: a rig, one ros camera_info per camera of a \
            rectified pair or one mrcal .cameramodel per camera, the first camera first. Lengths in metres (ros, \
            kalibr, mrcal) are stored in mm.

            Examples:
              markerkit calibrations import camera_info.yaml --name webcam --format ros
              markerkit calibrations import stereo.yaml --name stereo --format opencv-stereo
              markerkit calibrations import left.yaml right.yaml --name stereo --format ros
            """)
        @Argument(help: "The calibration file; for a rig in ros or mrcal, one file per camera.") var files: [String]
        @Option(help: ArgumentHelp("Name in the store.", valueName: "name")) var name: String
        @Option(help: ArgumentHelp("The format (default: recognised from the extension and content).", valueName: "format")) var format: String?
        @Flag(help: "Replace an existing calibration of that name.") var force = false

        func validate() throws { try Calibrations.checkFormat(format) }

        func run() throws {
            let name = try naming("--name: ") { try CalibrationStore.normalized(name: self.name) }
            let urls = files.map { URL(fileURLWithPath: $0) }
            if let rigFormat = try rigFormat(urls) {
                let inputs = try urls.map { (name: $0.deletingPathExtension().lastPathComponent, data: try MarkerKitError.contents(of: $0, what: "calibration", shown: $0.relativePath)) }
                var rig: CameraRig
                do {
                    rig = try rigFormat.map { try $0.decode(inputs, rigName: name) } ?? (try CameraRig.read(from: urls[0]))
                } catch let error as MarkerKitError {
                    guard case .badInput(let why) = error, let rigFormat else { throw error }
                    throw MarkerKitError.badInput("rig '\(files.joined(separator: "', '"))' is malformed (\(rigFormat.rawValue)): \(why)")
                }
                rig.name = name
                let location = try CalibrationLocation(name: name)
                try location.write(rig, force: force)
                print("stored \(location.shown)")
                for line in RigSummary.lines(for: rig) { print(line) }
                return
            }
            let chosen = try format.map { try CalibrationFormat(name: $0) }
            var c = try CameraCalibration.read(from: urls[0], format: chosen)
            c.name = name
            let stored = try CalibrationStore.default.save(c, force: force)
            print("stored \(stored.path)")
            for line in CalibrationSummary.lines(for: c) { print(line) }
        }

        /// nil: one camera; .some(nil): a MarkerKit rig file; .some(format): a rig in that format.
        private func rigFormat(_ urls: [URL]) throws -> RigFormat?? {
            guard !urls.isEmpty else { throw ValidationError("give the file to import") }
            // opencv-stereo is always a rig; ros and mrcal are one when several files are given; a Kalibr camchain when it has cam1.
            if let format, RigFormat(rawValue: format.lowercased()) == .opencvStereo { return .some(.opencvStereo) }
            let head = try MarkerKitError.contents(of: urls[0], what: "calibration", shown: urls[0].relativePath)
            let text = String(decoding: head.prefix(8192), as: UTF8.self)
            if urls.count > 1 {
                switch try format.map({ try CalibrationFormat(name: $0) }) ?? CalibrationFormat.guess(url: urls[0], data: head) {
                case .ros: return .some(.ros)
                case .mrcal: return .some(.mrcal)
                default: throw MarkerKitError.invalidArgument("several files make a rig in ros (camera_info) or mrcal (.cameramodel): '\(files[0])' is neither")
                }
            }
            if format == nil || format == "opencv-yaml" || format == "opencv-xml" {
                if RigStorageFormat.isRig(head) { return .some(nil) }
                if text.contains("M1") && text.contains("M2") && (text.contains("\nT:") || text.contains("<T ")) { return .some(.opencvStereo) }
            }
            if format == nil || format?.lowercased() == "kalibr", text.contains("cam1:") && text.contains("T_cn_cnm1") { return .some(.kalibr) }
            return nil
        }
    }
}

import ArgumentParser
import Foundation
import MarkerKit

extension Calibrations {
    struct Export: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write a calibration or a rig in another tool's format.",
            discussion: """
            A camera: \(CalibrationFormat.names). A rig (from 'calibrate --rig'): opencv-stereo (one cv::FileStorage \
            file with stereo_calib.cpp's M1 D1 M2 D2 R T E F R1 R2 P1 P2 Q, .yaml or .xml), ros (a folder with one \
            camera_info per camera, R and P of the rectified pair, Tx in metres), kalibr (one camchain, T_cn_cnm1 \
            in metres) or mrcal (a folder with one .cameramodel per camera, extrinsics rt_cam_ref in metres); \
            opencv-stereo and ros take a pair, the first two cameras unless --pair names them. --camera takes one \
            camera out of a rig in any camera format.

            Examples:
              markerkit calibrations export webcam --format colmap -o cameras.txt
              markerkit calibrations export stereo --format opencv-stereo -o stereo.yaml
              markerkit calibrations export stereo --format ros -o camera_info/
              markerkit calibrations export stereo --camera left --format mrcal -o left.cameramodel
            """)
        @Argument(help: "A stored name or a calibration or rig file.") var name: String
        @Option(help: ArgumentHelp("The format to write.", valueName: "format")) var format: String
        @Option(name: .shortAndLong, help: ArgumentHelp("Output file (a folder for a rig in ros or mrcal).", valueName: "path")) var output: String
        @Option(help: ArgumentHelp("A rig's camera to write alone.", valueName: "name")) var camera: String?
        @Option(help: ArgumentHelp("A rig's two cameras for opencv-stereo and ros, FIRST,SECOND.", valueName: "names")) var pair: String?
        @Flag(help: "Replace existing files.") var force = false

        func validate() throws { try Calibrations.checkFormat(format) }

        func run() throws {
            let url = URL(fileURLWithPath: output)
            switch try CalibrationStore.default.resolveEntry(name) {
            case .camera(let c):
                guard camera == nil, pair == nil else { throw ValidationError("--camera and --pair take a rig; '\(name)' is one camera") }
                try write(c, url: url)
            case .rig(let rig):
                if let camera {
                    guard let c = rig.cameras.first(where: { $0.name == camera }) else {
                        throw MarkerKitError.invalidArgument("--camera: the rig has no camera '\(camera.prefix(40))' (cameras: \(rig.cameras.map(\.name).joined(separator: ", ")))")
                    }
                    return try write(c, url: url)
                }
                guard let chosen = RigFormat(rawValue: format.lowercased()) else {
                    throw MarkerKitError.invalidArgument("a rig is exported as \(RigFormat.names), not '\(format.prefix(40))' (one of its cameras: --camera NAME)")
                }
                let files = try chosen.encode(rig, pair: try naming("--pair: ") { try rig.pair(named: pair) }, file: url.lastPathComponent)
                var outputs = OutputFiles()
                if chosen.perCamera {
                    try OutputFiles.checkDirectoryDestination(url, names: files.map(\.0), force: force)
                    let folder = try OutputFolder(output, option: "-o")
                    for (file, data) in files { outputs.add(data, at: folder.url.appendingPathComponent(file)) }
                } else {
                    try OutputFiles.checkDestination(url, force: force)
                    outputs.add(files[0].1, at: url)
                }
                for written in try outputs.commit() { print("wrote \(written.relativePath) (\(chosen.rawValue))") }
            }
        }

        private func write(_ c: CameraCalibration, url: URL) throws {
            let chosen = try CalibrationFormat(name: format)
            try OutputFiles.checkDestination(url, force: force)
            try OutputFiles.writeProtected(try chosen.encode(c), to: url, force: force)
            print("wrote \(url.relativePath) (\(chosen.rawValue))")
        }
    }
}

extension Calibrations {
    /// A --format that names no camera format and no rig format, refused before anything is read.
    static func checkFormat(_ format: String?) throws {
        guard let format else { return }
        guard CalibrationFormat(rawValue: format.lowercased()) != nil || RigFormat(rawValue: format.lowercased()) != nil else {
            throw ValidationError("the value '\(format.prefix(40))' is invalid for '--format <format>'. Use one of: \(CalibrationFormat.names) (a camera); \(RigFormat.names) (a rig)")
        }
    }
}

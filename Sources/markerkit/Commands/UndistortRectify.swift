import ArgumentParser
import Foundation
import MarkerKit

/// `undistort --rectify`: a rig's pair of images (or folders matched by name) rectified so that their rows
/// align, with each camera's rectification map.
extension Undistort {
    func runRectify() throws {
        guard alpha.isFinite, (0...1).contains(alpha) else { throw MarkerKitError.invalidArgument("--alpha \(alpha) is outside 0..1") }
        let rig = try CalibrationStore.default.resolveRig(calibration)
        let (first, second) = try naming("--pair: ") { try rig.pair(named: pair) }
        let rectification = try StereoRectification(rig: rig, first: first, second: second, alpha: alpha)
        guard inputs.count == 2 else {
            throw MarkerKitError.invalidArgument("--rectify takes two inputs, the first camera's image or folder and the second's (given \(inputs.count))")
        }
        let images: [[URL]]
        func isFile(_ path: String) -> Bool {
            var folder: ObjCBool = false
            return FileManager.default.fileExists(atPath: path, isDirectory: &folder) && !folder.boolValue
        }
        if inputs.allSatisfy(isFile) {
            images = inputs.map { [URL(fileURLWithPath: $0)] }
        } else {
            images = try RigInputs(folders: inputs, option: "--rectify").images
        }
        let names = [rig.cameras[first].name, rig.cameras[second].name]
        let stems = images[0].map { $0.deletingPathExtension().lastPathComponent }
        let planned = names.flatMap { name in stems.map { "\(name)/\($0).png" } } + names.map { "\($0)-map.npy" }
        try OutputFiles.checkDirectoryDestination(URL(fileURLWithPath: output), names: planned, force: forceOption.force)
        let maps = try [0, 1].map { try rectification.maps(camera: $0) }
        var files = OutputFiles()
        let folder = try OutputFolder(output, option: "-o")
        do {
            for camera in 0..<2 {
                files.add(try RectificationMaps.npy(x: maps[camera].x, y: maps[camera].y, width: rectification.width, height: rectification.height),
                          at: folder.url.appendingPathComponent("\(names[camera])-map.npy"))
                for url in images[camera] {
                    let frame = try Frame(contentsOf: url, format: .bgr8)
                    guard frame.width == rectification.width, frame.height == rectification.height else {
                        throw MarkerKitError.badInput("'\(url.relativePath)' is \(frame.width)x\(frame.height); camera '\(names[camera])' was calibrated at \(rectification.width)x\(rectification.height)")
                    }
                    let out = try rectification.rectify(frame, camera: camera, maps: maps[camera])
                    files.add(try out.encoded(as: "png"), at: folder.url.appendingPathComponent("\(names[camera])/\(url.deletingPathExtension().lastPathComponent).png"))
                }
            }
            for camera in names { try FileManager.default.createDirectory(at: folder.url.appendingPathComponent(camera), withIntermediateDirectories: true) }
            for written in try files.commit() { print("wrote \(written.relativePath)") }
        } catch {
            folder.removeIfCreated()
            throw error
        }
        print(String(format: "rectified %@ + %@: focal %.3f px, baseline %.4f %@; rows of both cameras now align", names[0], names[1],
                     rectification.focal, rectification.baseline, rig.units))
    }
}

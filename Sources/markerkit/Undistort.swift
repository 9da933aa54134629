import ArgumentParser
import Foundation
import MarkerKit

struct Undistort: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Remove lens distortion from images with a calibration.",
        discussion: """
        --alpha 0 keeps only valid pixels (the image is cropped and scaled, no black border); 1 keeps every \
        pixel of the source (black corners). Output images keep their names, as PNG, in DIR.

        Examples:
          markerkit undistort --calibration webcam shots/ -o undistorted/
          markerkit undistort --calibration intrinsics.yml photo.jpg -o out/ --alpha 1
        """
    )

    @Option(help: ArgumentHelp("A stored calibration name or a calibration file.", valueName: "name|file")) var calibration: String
    @Argument(help: "Images or folders of images.") var inputs: [String]
    @Option(name: .shortAndLong, help: ArgumentHelp("Folder for the undistorted images (created when missing).", valueName: "dir")) var output: String
    @Option(help: ArgumentHelp("0 (valid pixels only) to 1 (all source pixels).", valueName: "0..1")) var alpha: Double = 0

    func run() throws {
        let undistorter = try Undistorter(calibration: try CalibrationStore.default.resolve(calibration), alpha: alpha)
        let catalog = InputCatalog(paths: inputs)
        for line in catalog.notes { note(line) }
        var failures: [MarkerKitError] = catalog.problems
        for problem in catalog.problems { FileHandle.standardError.write(Data("markerkit: error: \(problem.description)\n".utf8)) }
        // Nothing to read: no output folder either.
        guard !catalog.items.isEmpty else { throw ExitCode(failures.first?.exitCode ?? 66) }
        let existed = FileManager.default.fileExists(atPath: output)
        let directory = try Detect.makeDirectory(output, option: "-o")
        var written = 0
        var used = Set<String>()
        for item in catalog.items {
            guard case .image(let url) = item else {
                let error = MarkerKitError.badInput("'\(item)' is a video: undistort takes images")
                FileHandle.standardError.write(Data("markerkit: error: \(error.description)\n".utf8))
                failures.append(error)
                continue
            }
            do {
                let frame = try Frame(contentsOf: url, format: .bgr8)
                var name = url.deletingPathExtension().lastPathComponent + ".png"
                var n = 2
                while used.contains(name) { name = url.deletingPathExtension().lastPathComponent + "-\(n).png"; n += 1 }
                used.insert(name)
                var files = OutputFiles()
                files.add(try undistorter.undistort(frame).encoded(as: "png"), at: directory.appendingPathComponent(name))
                try files.commit()
                print("\(url.relativePath) -> \(directory.appendingPathComponent(name).relativePath)")
                written += 1
            } catch let error as MarkerKitError {
                FileHandle.standardError.write(Data("markerkit: error: \(error.description)\n".utf8))
                failures.append(error)
            }
        }
        guard written > 0 else {
            // A failed run leaves no trace: the folder goes again if this run made it.
            if !existed { rmdir(directory.path) }
            throw ExitCode(failures.first?.exitCode ?? 66)
        }
        if !failures.isEmpty { throw ExitCode(1) }
    }
}

import ArgumentParser
import Foundation
import MarkerKit

struct Undistort: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Remove lens distortion from images with a calibration, or rectify a rig's image pairs.",
        discussion: """
        --alpha 0 keeps only valid pixels (the image is cropped and scaled, no black border); 1 keeps every \
        pixel of the source (black corners). Output images keep their names, as PNG, in DIR. With --rectify and \
        a rig (calibrate --rig), two inputs, the first camera's image or folder and the second's (folders matched \
        by name), are rectified so that a point lies on the same row in both (cv::stereoRectify): DIR/CAMERA/NAME.png \
        for each image and DIR/CAMERA-map.npy, each camera's map (float32, height x width x 2, the source x and y \
        of each pixel, for cv2.remap).

        Examples:
          markerkit undistort --calibration webcam shots/ -o undistorted/
          markerkit undistort --calibration intrinsics.yml photo.jpg -o out/ --alpha 1
          markerkit undistort --calibration stereo --rectify left01.jpg right01.jpg -o rectified/
        """
    )

    @Option(help: ArgumentHelp("A stored calibration name or a calibration file.", valueName: "name|file")) var calibration: String
    @Argument(help: "Images or folders of images.") var inputs: [String]
    @Option(name: .shortAndLong, help: ArgumentHelp("Folder for the undistorted images (created when missing).", valueName: "dir")) var output: String
    @Option(help: ArgumentHelp("0 (valid pixels only) to 1 (all source pixels).", valueName: "0..1")) var alpha: Double = 0
    @Flag(help: "Rectify a rig's pairs: --calibration names a rig, the inputs are its first and second camera's image or folder.") var rectify = false
    @Option(help: ArgumentHelp("With --rectify, the rig's two cameras, FIRST,SECOND (default: the first two).", valueName: "names")) var pair: String?
    @OptionGroup var forceOption: ForceOption

    func run() throws {
        if rectify { return try runRectify() }
        if pair != nil { throw ValidationError("--pair goes with --rectify") }
        guard alpha.isFinite, (0...1).contains(alpha) else { throw MarkerKitError.invalidArgument("--alpha \(alpha) is outside 0..1") }
        guard case .camera(let camera) = try CalibrationStore.default.resolveEntry(calibration) else {
            throw MarkerKitError.invalidArgument("'\(calibration)' is a rig: rectify its pairs with --rectify, or take one camera out with 'calibrations export \(calibration) --camera NAME'")
        }
        let undistorter = try Undistorter(calibration: camera, alpha: alpha)
        let catalog = InputCatalog(paths: inputs)
        for line in catalog.notes { note(line) }
        var failures: [MarkerKitError] = catalog.problems
        for problem in catalog.problems { report(problem) }
        // Nothing to read: no output folder either.
        guard !catalog.items.isEmpty else { throw ExitCode(failures.first?.exitCode ?? 66) }
        try OutputFiles.checkDirectoryDestination(URL(fileURLWithPath: output), names: Self.names(catalog.items), force: forceOption.force)
        let folder = try OutputFolder(output, option: "-o")
        let directory = folder.url
        var written = 0, scaled = ScaledCalibrationNotes(undistorter.calibration)
        var used = Set<String>()
        for item in catalog.items {
            guard case .image(let url) = item else {
                let error = MarkerKitError.badInput("'\(item)' is a video: undistort takes images")
                report(error)
                failures.append(error)
                continue
            }
            do {
                let frame = try Frame(contentsOf: url, format: .bgr8)
                scaled.picture(width: frame.width, height: frame.height)
                let name = Self.name(for: url, used: &used)
                var files = OutputFiles()
                files.add(try undistorter.undistort(frame).encoded(as: "png"), at: directory.appendingPathComponent(name))
                try files.commit()
                print("\(url.relativePath) -> \(directory.appendingPathComponent(name).relativePath)")
                written += 1
            } catch let error as MarkerKitError {
                report(error)
                failures.append(error)
            }
        }
        guard written > 0 else {
            // A failed run leaves no trace: the folder goes again if this run made it.
            folder.removeIfCreated()
            throw ExitCode(failures.first?.exitCode ?? 66)
        }
        if !failures.isEmpty { throw ExitCode(1) }
    }

    /// `stem.png`, or `stem-2.png`, ... when an earlier image took the name.
    static func name(for url: URL, used: inout Set<String>) -> String {
        let stem = url.deletingPathExtension().lastPathComponent
        var name = stem + ".png"
        var n = 2
        while used.contains(name) { name = stem + "-\(n).png"; n += 1 }
        used.insert(name)
        return name
    }

    /// Every name the images of `items` may be written under.
    static func names(_ items: [InputCatalog.Item]) -> [String] {
        var used = Set<String>()
        return items.compactMap { item in
            guard case .image(let url) = item else { return nil }
            return name(for: url, used: &used)
        }
    }
}

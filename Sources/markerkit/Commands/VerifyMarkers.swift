import ArgumentParser
import Foundation
import AprilTagPeer
import MarkerKit

struct VerifyMarkers: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "markers",
        abstract: "MarkerKit's detector against OpenCV's aruco (default and CORNER_REFINE_SUBPIX) and, for AprilTags, AprilTag 3 on sampled renders.",
        discussion: """
        Scenes are sampled over marker size (8-400 px side), tilt (0-75°), noise, blur, lighting, JPEG and \
        background with a seed, so a run is reproducible. Reports recall, wrong IDs, false positives, corner \
        error (P50, P90, max, RMSE), pose error and time per frame, overall and by size, tilt and noise. \
        With --truth, the same figures on a folder 'markerkit render' wrote (your own test set), against \
        its truth.json, one trial per marker; --renders, --seed, --size and --calibration are then not used.

        With --profile phone the renders are phone photos (3024x4032 and 2448x3264, portrait and \
        landscape, several markers of 20-250 px with gray patches, text or a second marker printed close \
        beside many of them, a phone's blur, motion blur, sensor noise, vignetting, shadows and JPEG): one \
        trial per marker, also broken down by optical blur, motion blur, JPEG quality, the print beside \
        the marker and the paper between them. Default 100 renders (about 520 markers; about 2 minutes on 2 cores).
        With --profile touching the renders are sheets of markers that touch (ArUco's marker chessboard, \
        tight grids; default 200); with --profile cluttered, markers on cards among text, squares and codes \
        of no dictionary on a textured or printed background (default 200). Every table says how many \
        markers another detector read that MarkerKit missed.

        Renders are made and measured on every core at once (--jobs); every figure is the same as with \
        --jobs 1 but the times, which are each detector's own time per image while the other cores work \
        on other renders (compare times with --jobs 1).

        Examples:
          markerkit verify markers --renders 200 --seed 7
          markerkit verify markers --renders 1000 --json verify.json --report verify.pdf
          markerkit render --count 50 -o testset && markerkit verify markers --truth testset
          markerkit verify markers --profile phone --seed 7
          markerkit verify markers --profile touching
          markerkit verify markers --profile cluttered --size 640x480
        """
    )

    @Option(help: "Number of renders, 1-1000000 (default 1000; 100 with --profile phone, 200 with touching or cluttered).") var renders: Int?
    @Option(help: "Seed: the same seed gives the same scenes.") var seed: UInt64 = 7
    @OptionGroup var profileOption: ProfileOption
    @Option(help: ArgumentHelp("Image size in pixels, without --calibration (default 1280x720).", valueName: "WxH"), transform: ImageSize.parse)
    var size: ImageSize?
    @Option(help: ArgumentHelp("Camera: a stored name or a calibration file.", valueName: "name|file")) var calibration: String?
    @Option(help: ArgumentHelp("A render folder (or its truth.json) to measure instead of sampled renders.", valueName: "dir"))
    var truth: String?
    @Option(help: ArgumentHelp("Write every figure as JSON.", valueName: "file")) var json: String?
    @OptionGroup var dictionaryOption: DictionaryOption
    @Option(help: ArgumentHelp("Write plots: recall by size, corner error by tilt (.pdf, .png, .svg).", valueName: "file")) var report: String?
    @OptionGroup var jobs: JobsOption
    @OptionGroup var forceOption: ForceOption

    /// Renders by default: 1000 of one marker, 100 phone photos of several, 200 sheets or scenes of several.
    static let defaultRenders = 1000, defaultPhoneRenders = 100, defaultSeveralRenders = 200

    func run() throws {
        let phone = profileOption.isPhone
        let renders = renders ?? (phone ? Self.defaultPhoneRenders : profileOption.profile == .default ? Self.defaultRenders : Self.defaultSeveralRenders)
        try InputRange.check(renders, in: RenderLimits.markerRenders, "--renders")
        try profileOption.check(size: size, calibration: calibration)
        if profileOption.profile != .default, truth != nil {
            throw MarkerKitError.invalidArgument("--truth measures a render folder as it was rendered: --profile \(profileOption.profile.rawValue) does not apply (render it with 'markerkit render --profile \(profileOption.profile.rawValue)')")
        }
        let jobCount = try jobs.count()
        let truthFile = try truth.map { path -> (file: RenderTruthFile, folder: URL, url: URL) in
            var url = URL(fileURLWithPath: path)
            var isFolder: ObjCBool = false
            if FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), isFolder.boolValue {
                url = url.appendingPathComponent("truth.json")
            }
            return (try RenderTruthFile.read(from: url), url.deletingLastPathComponent(), url)
        }
        let camera = try truthFile.map { try $0.file.calibration() }
            ?? (phone ? BuiltInCamera.phone(width: 3024, height: 4032) : renderCamera(calibration: calibration, size: size ?? .webcam))
        let jsonURL = try outputFile(json, force: forceOption.force)
        let reportTarget = try reportDestination(report, force: forceOption.force)
        let progress = ProgressBar(label: "verifying")
        Interrupt.install()
        let step = { (done: Int, total: Int) throws in
            progress.update(done, total, "")
            try Interrupt.checkpoint("verify markers")
        }
        // A truth folder says which dictionary its markers are from.
        let dictionary = truthFile?.file.markerDictionary ?? dictionaryOption.dictionary
        let contenders = MarkerVerification.Contender.all(dictionary: dictionary) + [.aprilTag3(dictionary: dictionary)].compactMap { $0 }
        let trials: [MarkerVerification.Trial]
        if let truthFile {
            trials = try MarkerVerification.run(truth: truthFile.file, folder: truthFile.folder, contenders: contenders, jobs: jobCount,
                                                progress: step)
        } else {
            let sampler = profileOption.renderProfile(camera: camera).sampler(seed: seed, dictionary: dictionary)
            var verification = MarkerVerification(contenders: contenders, renders: renders, sampler: sampler)
            trials = try verification.run(jobs: jobCount, progress: step)
        }
        progress.finish()
        var summary = MarkerVerificationSummary(trials: trials, detectors: contenders.map(\.name), seed: seed,
                                                width: camera.imageWidth, height: camera.imageHeight, camera: camera.name,
                                                profile: profileOption.profile == .default ? nil : profileOption.profile.rawValue)
        summary.source = truthFile?.url.relativePath
        print(summary.table)
        var files = OutputFiles()
        if let jsonURL {
            struct Output: Encodable { let summary: MarkerVerificationSummary; let trials: [MarkerVerification.Trial] }
            files.add(try JSONFile.encode(Output(summary: summary, trials: trials), snakeCase: false), at: jsonURL)
        }
        if let (url, format) = reportTarget {
            try files.add(VerificationReport(summary: summary).document(), as: format, at: url, dpi: 150)
        }
        for url in try files.commit() { print("wrote \(url.relativePath)") }
    }
}

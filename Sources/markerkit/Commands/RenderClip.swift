import Foundation
import MarkerKit

extension Render {
    /// A clip for the capture assistant: each view held 0.7 s, 0.3 s of motion between, at 10 fps; an .avi,
    /// or a folder of PNG frames (lossless, for the fake camera's MARKERKIT_FAKE_CAMERA_FRAMES_DIR).
    func renderClip(views: Int, charuco: CharucoBoard?) throws {
        try InputRange.check(views, in: RenderLimits.clipViews, "--clip")
        try checkDegradations(noise: noise ?? 0, blur: blur ?? 0)
        let url = URL(fileURLWithPath: output)
        let camera = try replacingK1(k1, of: renderCamera(calibration: calibration, size: size ?? .webcam))
        var verification = try CalibrationVerification(camera: camera, width: camera.imageWidth, height: camera.imageHeight, views: views, seed: seed)
        verification.noise = noise ?? 0
        verification.blur = blur ?? 0
        verification.charuco = charuco
        let clip = BoardClip(verification: verification)
        let board = "\(charuco.map { "ChArUco \($0.summary)" } ?? verification.board.summary) board\(charuco == nil ? "" : " leaving the image")"
        let lens = "camera \(camera.name), fx \(String(format: "%.2f", camera.fx))"
        guard url.pathExtension.lowercased() == "avi" else {
            guard url.pathExtension.isEmpty else {
                throw MarkerKitError.cannotWrite("cannot write '\(output)': --clip writes an .avi, or PNG frames into a folder")
            }
            let folder = try OutputFolder(output, option: "-o")
            do {
                let (frames, spec) = try clip.writeFrames(into: folder.url, force: forceOption.force)
                return print("rendered \(frames) frames of \(views) views of a \(board), \(camera.imageWidth)x\(camera.imageHeight), into \(folder.url.relativePath)/ with truth.json (\(lens)); board spec \(spec.relativePath)")
            } catch {
                folder.removeIfCreated()
                throw error
            }
        }
        let (_, spec) = try clip.write(to: url, force: forceOption.force)
        print("rendered \(url.relativePath): \(views) views of a \(board), \(camera.imageWidth)x\(camera.imageHeight) at 10 fps (\(lens)); board spec \(spec.relativePath)")
    }

    /// A rig's clips: one video per camera of the built-in rig (verify calibration --rig), frames taken together.
    func renderRigClip(views: Int, cameras: Int, charuco: CharucoBoard?) throws {
        try InputRange.check(views, in: RenderLimits.clipViews, "--clip")
        try checkDegradations(noise: noise ?? 0, blur: blur ?? 0)
        guard calibration == nil, size == nil, k1 == nil else { throw MarkerKitError.invalidArgument("--rig renders its own cameras: --calibration, --size and --k1 take one camera") }
        var verification = try RigVerification(cameras: cameras, views: views, seed: seed)
        verification.noise = noise ?? 0
        verification.blur = blur ?? 0
        verification.charuco = charuco
        let folder = try OutputFolder(output, option: "-o")
        do {
            try verification.writeClip(into: folder.url, force: forceOption.force)
        } catch {
            folder.removeIfCreated()
            throw error
        }
        let baselines = (1..<cameras).map { c in String(format: "%.1f mm", verification.extrinsics[c].tvec.map { $0 * $0 }.reduce(0, +).squareRoot()) }
        print("rendered \(views) views of the board before a rig of \(cameras) cameras into \(folder.url.relativePath)/: \(verification.clipFiles.joined(separator: ", ")) (true baselines \(baselines.joined(separator: ", ")))")
    }
}

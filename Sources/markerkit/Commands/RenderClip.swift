import Foundation
import MarkerKit

extension Render {
    /// A clip for the capture assistant: each view held 0.7 s, 0.3 s of motion between, at 10 fps.
    func renderClip(views: Int, charuco: CharucoBoard?) throws {
        try InputRange.check(views, in: RenderLimits.clipViews, "--clip")
        try checkDegradations(noise: noise ?? 0, blur: blur ?? 0)
        let url = URL(fileURLWithPath: output)
        guard url.pathExtension.lowercased() == "avi" else { throw MarkerKitError.cannotWrite("cannot write '\(output)': --clip writes an .avi") }
        let camera = try replacingK1(k1, of: renderCamera(calibration: calibration, size: size ?? .webcam))
        var verification = try CalibrationVerification(camera: camera, width: camera.imageWidth, height: camera.imageHeight, views: views, seed: seed)
        verification.noise = noise ?? 0
        verification.blur = blur ?? 0
        verification.charuco = charuco
        let (_, spec) = try BoardClip(verification: verification).write(to: url, force: forceOption.force)
        print("rendered \(url.relativePath): \(views) views of a \(charuco.map { "ChArUco \($0.summary)" } ?? verification.board.summary) board\(charuco == nil ? "" : " leaving the image"), \(camera.imageWidth)x\(camera.imageHeight) at 10 fps (camera \(camera.name), fx \(String(format: "%.2f", camera.fx))); board spec \(spec.relativePath)")
    }
}

import Foundation
import MarkerKit
import MarkerKitServer

/// One file parser under the fuzzer. `check` feeds it arbitrary bytes: refusing them with an error is
/// right, crashing is a finding, and so is accepting them and then breaking a promise (an accepted
/// calibration that is not finite, or that the same format cannot write and read back unchanged).
enum FuzzTarget: String, CaseIterable {
    case opencvYAML = "opencv-yaml", opencvXML = "opencv-xml", ros, kalibr, colmap, mrcal, json
    /// Any calibration file: the format guessed from the bytes, as `--calibration FILE` does.
    case anyCalibration = "any-calibration"
    case boardSpec = "board-spec"
    case captureLog = "capture-log"
    /// The truth.json of a render folder (`verify markers --truth`).
    case renderTruth = "render-truth"
    /// A typed length (`25mm`, `1in`), as every size option takes it.
    case length
    /// `markerkit serve`'s inputs: a `/api/sheet` body, a `/api/store` body, a request head (framing,
    /// path and Host as the connection and access guards read them).
    case serverSheet = "server-sheet", serverStore = "server-store", serverHead = "server-head"

    /// The target named by MARKERKIT_FUZZ_TARGET.
    static func fromEnvironment() -> FuzzTarget {
        let name = ProcessInfo.processInfo.environment["MARKERKIT_FUZZ_TARGET"] ?? ""
        guard let target = FuzzTarget(rawValue: name) else {
            FileHandle.standardError.write(Data("MARKERKIT_FUZZ_TARGET must be one of: \(allCases.map(\.rawValue).joined(separator: ", "))\n".utf8))
            exit(2)
        }
        return target
    }

    /// Whether the input was accepted; traps when a promise is broken.
    @discardableResult
    func check(_ data: Data) -> Bool {
        switch self {
        case .opencvYAML, .opencvXML, .ros, .kalibr, .colmap, .mrcal, .json:
            let format = CalibrationFormat(rawValue: rawValue)!
            guard let calibration = try? format.decode(data, name: "fuzz") else { return false }
            Self.checkRoundTrip(calibration, through: format)
            return true
        case .anyCalibration:
            let format = CalibrationFormat.guess(url: URL(fileURLWithPath: "/fuzz/input"), data: data)
            guard let calibration = try? format.decode(data, name: "fuzz") else { return false }
            Self.checkUsable(calibration)
            return true
        case .boardSpec:
            guard let spec = try? BoardSpec.decode(data, source: "fuzz") else { return false }
            let board: Checkerboard
            do { board = try spec.checkerboard() } catch { fatalError("accepted board spec has no board: \(error)") }
            precondition(board.innerColumns >= 2 && board.innerRows >= 2 && board.square.millimetres > 0
                         && board.square.millimetres.isFinite, "accepted board spec with an unusable board")
            return true
        case .captureLog:
            guard let log = try? CaptureLog.decode(data, source: "fuzz") else { return false }
            _ = try? log.checkerboard()
            return true
        case .renderTruth:
            guard let truth = try? RenderTruthFile.decode(data, source: "fuzz") else { return false }
            do { Self.checkUsable(try truth.calibration()) } catch { fatalError("accepted truth has no usable camera: \(error)") }
            for marker in truth.scenes.flatMap(\.markers) {
                precondition(marker.tiltDegrees.isFinite && marker.sceneTruth.sidePixels.isFinite, "accepted marker with unusable geometry")
            }
            return true
        case .serverSheet:
            return ServerInputs.sheet(data)
        case .serverStore:
            return ServerInputs.store(data)
        case .serverHead:
            return ServerInputs.head(data)
        case .length:
            guard let length = try? Length(parsing: String(decoding: data, as: UTF8.self)) else { return false }
            precondition(length.millimetres.isFinite, "accepted length is not finite")
            return true
        }
    }

    /// An accepted calibration can be used: finite, positive focal lengths, a model with its coefficients.
    static func checkUsable(_ c: CameraCalibration) {
        precondition((c.cameraMatrix + c.distortion).allSatisfy(\.isFinite), "accepted calibration holds NaN or infinity")
        precondition(c.fx > 0 && c.fy > 0, "accepted calibration with focal lengths \(c.fx), \(c.fy)")
        precondition(c.distortion.count == c.model.distortionCount, "model and coefficient count disagree")
        precondition(c.imageWidth >= 0 && c.imageHeight >= 0, "negative image size accepted")
    }

    /// What a format accepts it writes back and reads again unchanged (to 1e-9, relative).
    static func checkRoundTrip(_ c: CameraCalibration, through format: CalibrationFormat) {
        checkUsable(c)
        guard let written = try? format.encode(c) else { return } // refusing to write what the format cannot hold is fine
        let again: CameraCalibration
        do { again = try format.decode(written, name: "fuzz") } catch {
            fatalError("\(format.rawValue) wrote a file it cannot read back: \(error)\n\(String(decoding: written, as: UTF8.self))")
        }
        func close(_ a: [Double], _ b: [Double]) -> Bool {
            a.count == b.count && zip(a, b).allSatisfy { abs($0 - $1) <= 1e-9 * max(abs($0), abs($1)) + 1e-300 }
        }
        // The pinhole models are one lens with 0, 4, 5 or 8 coefficients: opencv5 with k3 = 0 may come back
        // as opencv4 (COLMAP's OPENCV); the same lens, so compare the coefficients padded to eight.
        func lens(_ c: CameraCalibration) -> (fisheye: Bool, coefficients: [Double]) {
            (c.model == .fisheye, c.model == .fisheye ? c.distortion : c.distortion + Array(repeating: 0, count: 8 - c.distortion.count))
        }
        precondition(lens(again).fisheye == lens(c).fisheye && again.imageWidth == c.imageWidth && again.imageHeight == c.imageHeight
                     && close(again.cameraMatrix, c.cameraMatrix) && close(lens(again).coefficients, lens(c).coefficients),
                     "\(format.rawValue) round trip changed the calibration: \(c) -> \(again)")
    }
}

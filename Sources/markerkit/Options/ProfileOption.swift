import ArgumentParser
import MarkerKit

/// What the renders of `render` and `verify markers` look like.
enum RenderProfile: String, ExpressibleByArgument, CaseIterable {
    /// One marker a render, over size, tilt, lighting, noise, blur and JPEG, through a webcam-like camera.
    case `default`
    /// Phone photos: 8 and 12 MP, portrait and landscape, several markers with print beside
    /// them, a phone's blur, noise, vignetting, shadows and JPEG.
    case phone
    /// Sheets of touching markers: ArUco's marker chessboard and tight grids, sharp and blurred, face-on,
    /// square to the image and turned, through a webcam-like camera.
    case touching
    /// Markers on cards in a cluttered room: a textured background or a printed poster, pages of text,
    /// grids of squares, codes of no dictionary, webcam noise, blur and JPEG.
    case cluttered
}

/// `--profile`, and the options it leaves no room for.
struct ProfileOption: ParsableArguments {
    @Option(help: ArgumentHelp("What the renders look like: default (one marker a render, webcam-like camera), phone (8 and 12 MP phone photos of several markers with print beside them, blur, noise, shadows and JPEG as a phone makes them) touching (sheets of markers that touch: ArUco's marker chessboard and tight grids) or cluttered (3-30 markers on cards among text, squares and codes of no dictionary, on a textured or printed background).",
                               valueName: "profile"))
    var profile: RenderProfile = .default

    var isPhone: Bool { profile == .phone }
    var isTouching: Bool { profile == .touching }

    /// The renders' profile through `camera` (phone photos bring their own camera).
    func renderProfile(camera: CameraCalibration) -> RenderSet.Profile {
        switch profile {
        case .default: return .camera(camera)
        case .phone: return .phone
        case .touching: return .touching(camera)
        case .cluttered: return .cluttered(camera)
        }
    }

    /// The phone profile chooses its own image sizes and camera.
    func check(size: ImageSize?, calibration: String?) throws {
        guard isPhone, size != nil || calibration != nil else { return }
        throw MarkerKitError.invalidArgument("--size and --calibration do not apply to --profile phone: its photos are 3024x4032 and 2448x3264, portrait and landscape, through a built-in phone camera")
    }
}

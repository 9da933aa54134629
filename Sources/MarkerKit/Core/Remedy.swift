/// What a user can do about a failure, said by each front end in its own words: the command line names
/// its options, a web page its controls. The library's own messages name no command-line option (other
/// packages use it); an error that has a next step carries it as a `Remedy`
/// (`MarkerKitError.advised`), and `description` words it plainly.
public enum Remedy: Sendable, Equatable {
    /// Look at the cameras there are and the sizes and controls each offers.
    case listCameras
    /// Ask the camera for this size.
    case requestSize(width: Int, height: Int)
    /// Let the calibration be scaled to the stream's size, or ask the camera for the calibration's size.
    case allowScaling(width: Int, height: Int)
    /// Calibrate again with this lens model (its name, `CameraCalibration.Model`'s raw value).
    case lensModel(String)
    /// Calibrate again without k3 (the opencv4 model, or k3 held at zero).
    case withoutK3
    /// Render a board with its truth file.
    case renderBoard
    /// Listen on another port.
    case anotherPort

    /// The remedy in plain words, naming no option.
    public var description: String {
        switch self {
        case .listCameras: "the list of cameras says what each offers"
        case .requestSize(let w, let h): "ask the camera for \(w)x\(h)"
        case .allowScaling(let w, let h): "let the calibration be scaled, or ask the camera for \(w)x\(h)"
        case .lensModel(let model): "calibrate with the \(model) lens model"
        case .withoutK3: "calibrate again with the opencv4 model (k3 held at 0), or export to another format"
        case .renderBoard: "render a board, whose truth file holds it"
        case .anotherPort: "choose another port"
        }
    }
}

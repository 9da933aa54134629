import Foundation
import MarkerKit

/// A line on stderr that is not an error: what was left out, what to watch for.
func note(_ message: String) {
    FileHandle.standardError.write(Data("markerkit: note: \(message)\n".utf8))
}

/// A line on stderr about something that may make the result wrong.
func warn(_ message: String) {
    FileHandle.standardError.write(Data("markerkit: warning: \(message)\n".utf8))
}

/// What was done to a camera's controls, or what was left moving, in one line (nothing for files).
func reportCameraSetup(_ camera: V4L2Camera?, locking: Bool) {
    guard let camera else { return }
    if camera.locked == ["fixed focus"] {
        note("camera '\(camera.path)' has a fixed focus and no exposure or white balance control: nothing to hold")
    } else if !camera.locked.isEmpty {
        note("camera held for calibration: \(camera.locked.joined(separator: ", ")); put back when markerkit stops (--no-lock leaves it alone)")
    } else if !locking, let autofocus = camera.controls.all().first(where: { $0.name == "focus_automatic_continuous" }), autofocus.value == 1 {
        warn("autofocus is on (--no-lock): a focus that moves between views makes the calibration wrong")
    }
}

/// One error on stderr, for a run that goes on with its other inputs.
func report(_ error: MarkerKitError) {
    FileHandle.standardError.write(Data("markerkit: error: \(error.cliMessage)\n".utf8))
}

/// One status line on stderr, rewritten in place, when stderr is a terminal.
/// The line is only made when stderr is a terminal (track and capture make one per frame).
func status(_ line: @autoclosure () -> String) {
    guard isatty(2) == 1 else { return }
    FileHandle.standardError.write(Data("\r\(line())\u{1B}[K".utf8))
}

func endStatus() {
    guard isatty(2) == 1 else { return }
    FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
}

/// A one-line progress bar on stderr when it is a terminal; silent otherwise.
final class ProgressBar {
    let label: String
    let enabled = isatty(2) == 1

    init(label: String) { self.label = label }

    func update(_ done: Int, _ total: Int, _ item: String) {
        guard enabled, total > 0 else { return }
        let width = 24
        let filled = width * done / total
        let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
        let name = item.count > 30 ? "..." + item.suffix(27) : item
        FileHandle.standardError.write(Data("\r\(label) [\(bar)] \(done)/\(total) \(name)\u{1B}[K".utf8))
    }

    func finish() {
        guard enabled else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
    }
}

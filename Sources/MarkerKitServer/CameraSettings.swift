import Foundation
import MarkerKit

/// The camera controls the page shows and changes: focus, exposure, gain and white balance with their
/// automatic modes, and what the lock did (`GET /api/camera`, `POST /api/camera`).
public struct CameraSettings: Codable, Sendable {
    public struct Control: Codable, Sendable {
        public struct Entry: Codable, Sendable {
            public let index: Int64
            public let name: String
        }

        public let name: String
        public let kind: String
        public let value: Int64?
        public let minimum: Int64, maximum: Int64, step: Int64
        /// An automatic mode drives it: the page shows it without letting it be changed.
        public let inactive: Bool
        public let menu: [Entry]

        init(_ c: V4L2Control) {
            name = c.name
            kind = c.kind.rawValue
            value = c.value
            (minimum, maximum, step) = (c.minimum, c.maximum, c.step)
            inactive = c.inactive || c.readOnly
            menu = c.menu.map { Entry(index: $0.index, name: $0.name) }
        }
    }

    /// What `--set` may change from the page, in the order shown.
    public static let shown = ["focus_automatic_continuous", "focus_absolute", "auto_exposure", "exposure_time_absolute", "gain",
                               "white_balance_automatic", "white_balance_temperature", "zoom_absolute"]

    /// What the lock did ("focus 35 (autofocus off)"); empty when the camera is not held.
    public let held: [String]
    public let controls: [Control]

    /// The camera's shown controls now; none for a video file or image folder.
    public init(camera: V4L2Camera?) {
        held = camera?.locked ?? []
        let all = camera?.controls.all() ?? []
        controls = Self.shown.compactMap { name in all.first { $0.name == name }.map(Control.init) }
    }

    /// Sets one of the shown controls (the value as typed: a number, on/off, a menu entry's name).
    public static func set(_ name: String, to text: String, on camera: V4L2Camera?) throws {
        guard let camera else { throw MarkerKitError.invalidArgument("the source is not a camera: it has no controls") }
        guard shown.contains(name), let control = camera.controls.all().first(where: { $0.name == name }) else {
            throw MarkerKitError.invalidArgument("the page changes \(shown.joined(separator: ", ")) (those the camera has), not '\(name)'")
        }
        try camera.controls.set(control, to: try control.value(from: text))
    }
}

import CV4L2
import Foundation

/// Holds a webcam still while it is calibrated: continuous autofocus off with the focus where it settled,
/// auto exposure to manual with exposure time and gain where they settled, auto white balance off. A
/// calibration holds only for the focus it was made at, and a focus that hunts between views makes it
/// silently wrong. What each control was before is kept (`Snapshot`) and put back at the end.
public enum CameraLock {
    /// Values to hold instead of where the camera settled (nil: where it settled).
    public struct Request: Sendable, Equatable {
        public var focus: Int64?
        public var exposure: Int64?
        public var gain: Int64?
        public init(focus: Int64? = nil, exposure: Int64? = nil, gain: Int64? = nil) {
            self.focus = focus
            self.exposure = exposure
            self.gain = gain
        }
    }

    /// The automatic modes: put back last, after the values they drive.
    static let automaticModes: Set<UInt32> = [cv4l2_cid_focus_auto(), cv4l2_cid_exposure_auto(), cv4l2_cid_auto_white_balance(),
                                              cv4l2_cid_autogain(), cv4l2_cid_exposure_auto_priority()]

    /// Every writable control's value before MarkerKit changed anything.
    public struct Snapshot: Sendable {
        public let controls: [V4L2Control]

        public init(_ controls: V4L2Controls) {
            self.controls = controls.all().filter { !$0.readOnly && !$0.writeOnly && $0.value != nil && $0.kind != .button }
        }

        /// Puts back every control that differs from the snapshot: the values first (while the automatic
        /// modes are still off, so the driver takes them; one driven by an automatic mode that was on is
        /// left to that mode), then the automatic modes. A camera that is gone is left alone. Returns
        /// the names of the controls that could not be put back.
        @discardableResult
        public func restore(on device: V4L2Controls) -> [String] {
            let now = Dictionary(device.all().map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
            var failed: [String] = []
            let ordered = controls.filter { !CameraLock.automaticModes.contains($0.id) && !$0.inactive }
                + controls.filter { CameraLock.automaticModes.contains($0.id) }
            for before in ordered {
                guard let value = before.value, let current = now[before.id], current.value != value else { continue }
                do { try device.set(current, to: value) } catch MarkerKitError.cameraLost { return [] } catch { failed.append(before.name) }
            }
            return failed
        }
    }

    /// Locks the camera and says what it did, one phrase per part ("focus 35 (autofocus off)",
    /// "fixed focus"). Controls named in `leave` (set by the user with --set) are left as they are.
    public static func lock(_ device: V4L2Controls, request: Request, leave: Set<String> = []) throws -> [String] {
        let locker = Locker(device: device, controls: device.all(), leave: leave)
        return try locker.focus(request.focus) + locker.exposure(request.exposure, gain: request.gain) + locker.whiteBalance()
    }

    /// The three parts of the lock, each read where the automatic mode left it, then held.
    private struct Locker {
        let device: V4L2Controls
        let controls: [V4L2Control]
        let leave: Set<String>

        func control(_ id: UInt32) -> V4L2Control? { controls.first { $0.id == id && !leave.contains($0.name) } }

        /// `asked` checked against the control, or the value the automatic mode reached.
        func wanted(_ control: V4L2Control?, _ asked: Int64?) throws -> Int64? {
            guard let control else { return nil }
            if let asked { return try control.value(from: String(asked)) }
            return device.value(of: control)
        }

        /// Sets a control (read again: switching its automatic mode off changed its flags) to a value put
        /// on its range and step; the value set.
        func hold(_ control: V4L2Control, at value: Int64) throws -> Int64? {
            guard let current = device.all().first(where: { $0.id == control.id }) else { return nil }
            let snapped = CameraLock.snap(value, to: current)
            try device.set(current, to: snapped)
            return snapped
        }

        /// Autofocus off, the focus held where it settled (or at `asked`).
        func focus(_ asked: Int64?) throws -> [String] {
            guard controls.contains(where: { $0.id == cv4l2_cid_focus_absolute() || $0.id == cv4l2_cid_focus_auto() }) else {
                return ["fixed focus"]
            }
            let focus = control(cv4l2_cid_focus_absolute()), autofocus = control(cv4l2_cid_focus_auto())
            let value = try wanted(focus, asked)
            if let autofocus { try device.set(autofocus, to: 0) }
            guard let focus, let value, let held = try hold(focus, at: value) else { return autofocus == nil ? [] : ["autofocus off"] }
            return ["focus \(held)" + (autofocus != nil ? " (autofocus off)" : "")]
        }

        /// Auto exposure (and auto gain) to manual, exposure time and gain held where they settled.
        func exposure(_ asked: Int64?, gain askedGain: Int64?) throws -> [String] {
            guard let mode = control(cv4l2_cid_exposure_auto()) else {
                return asked != nil || askedGain != nil ? ["no exposure control"] : []
            }
            let exposure = control(cv4l2_cid_exposure_absolute()), gain = control(cv4l2_cid_gain())
            let exposureValue = try wanted(exposure, asked), gainValue = try wanted(gain, askedGain)
            if let autogain = control(cv4l2_cid_autogain()) { try device.set(autogain, to: 0) }
            if mode.menu.contains(where: { $0.index == Int64(cv4l2_exposure_manual()) }) {
                try device.set(mode, to: Int64(cv4l2_exposure_manual()))
            }
            var parts: [String] = []
            if let exposure, let exposureValue, let held = try hold(exposure, at: exposureValue) { parts.append("exposure \(held)") }
            if let gain, let gainValue, let held = try hold(gain, at: gainValue) { parts.append("gain \(held)") }
            return parts.isEmpty ? [] : [parts.joined(separator: ", ") + " (auto exposure off)"]
        }

        /// Auto white balance off where it is (a colour shift does not move the lens, but it moves the
        /// contrast the corner finder sees after the conversion to gray).
        func whiteBalance() throws -> [String] {
            guard let automatic = control(cv4l2_cid_auto_white_balance()) else { return [] }
            let temperature = control(cv4l2_cid_white_balance_temperature())
            let value = try wanted(temperature, nil)
            try device.set(automatic, to: 0)
            guard let temperature, let value, let held = try hold(temperature, at: value) else { return ["white balance fixed"] }
            return ["white balance \(held)"]
        }
    }

    /// Whether any automatic mode is on, so that the camera needs time to settle before it is held.
    public static func needsSettling(_ device: V4L2Controls) -> Bool {
        device.all().contains { control in
            guard automaticModes.contains(control.id), let value = control.value else { return false }
            return control.id == cv4l2_cid_exposure_auto() ? value != Int64(cv4l2_exposure_manual()) : value != 0
        }
    }

    /// A value clamped to a control's range and put on its step (a camera reports a focus the step
    /// does not reach while its autofocus moves).
    static func snap(_ value: Int64, to control: V4L2Control) -> Int64 {
        let clamped = min(max(value, control.minimum), control.maximum)
        guard control.step > 1 else { return clamped }
        return control.minimum + (clamped - control.minimum + control.step / 2) / control.step * control.step
    }
}

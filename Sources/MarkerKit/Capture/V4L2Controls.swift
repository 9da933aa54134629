import CV4L2
import Foundation

/// One control of a V4L2 device (focus, exposure, gain, ...), as VIDIOC_QUERY_EXT_CTRL and
/// VIDIOC_QUERYMENU describe it, named as v4l2-ctl names it.
public struct V4L2Control: Sendable, Equatable {
    public enum Kind: String, Sendable {
        case integer = "int", boolean = "bool", menu = "menu", integerMenu = "intmenu", button = "button"
        case integer64 = "int64", bitmask = "bitmask", other = "other"
    }

    public struct MenuEntry: Sendable, Equatable {
        public let index: Int64
        public let name: String
    }

    public let id: UInt32
    /// v4l2-ctl's name: the driver's title in lower case, runs of other characters as one `_`
    /// ("Focus, Automatic Continuous" is `focus_automatic_continuous`).
    public let name: String
    public let kind: Kind
    public let minimum: Int64
    public let maximum: Int64
    public let step: Int64
    public let defaultValue: Int64
    /// The current value; nil when it cannot be read (a button, a write-only control).
    public var value: Int64?
    public let menu: [MenuEntry]
    public let readOnly: Bool
    /// Set while another control (an automatic mode) drives this one.
    public var inactive: Bool
    public let writeOnly: Bool
    /// The control class it belongs to ("User Controls", "Camera Controls").
    public let section: String

    /// v4l2-ctl's name for a driver's control title.
    public static func variableName(_ title: String) -> String {
        var name = ""
        var gap = false
        for character in title.unicodeScalars {
            if character.properties.isAlphabetic && character.isASCII || ("0"..."9").contains(character) {
                if gap && !name.isEmpty { name += "_" }
                gap = false
                name += String(character).lowercased()
            } else {
                gap = true
            }
        }
        return name
    }

    /// The control that drives this one while on, for messages (`focus_absolute` is inactive while
    /// `focus_automatic_continuous` is 1). Nil for controls without a known automatic mode.
    public var automaticMode: String? {
        switch id {
        case cv4l2_cid_focus_absolute(): return "focus_automatic_continuous"
        case cv4l2_cid_exposure_absolute(): return "auto_exposure"
        case cv4l2_cid_white_balance_temperature(): return "white_balance_automatic"
        case cv4l2_cid_gain(): return "gain_automatic"
        default: return nil
        }
    }

    /// What may be written, for messages: "0 to 250 in steps of 5", "0 or 1", "1 (Manual Mode) or 3 (...)".
    public var allowed: String {
        switch kind {
        case .boolean: return "0 or 1"
        case .menu, .integerMenu:
            let entries = menu.map { "\($0.index) (\($0.name))" }
            return entries.count <= 1 ? entries.joined() : entries.dropLast().joined(separator: ", ") + " or " + entries.last!
        case .button: return "any value (it is a button)"
        default: return "\(minimum) to \(maximum)" + (step > 1 ? " in steps of \(step)" : "")
        }
    }

    /// The value a typed text stands for: a number, for booleans also true/false/on/off, for menus also an
    /// entry's name (case and punctuation ignored). Throws one line naming what is allowed.
    public func value(from text: String) throws -> Int64 {
        let typed = text.trimmingCharacters(in: .whitespaces)
        func refuse(_ why: String = "") -> MarkerKitError {
            .invalidArgument("\(name)=\(typed)\(why) is not allowed: \(name) takes \(allowed)")
        }
        if readOnly { throw MarkerKitError.invalidArgument("\(name) is read-only (it is \(value.map(String.init) ?? "unreadable")); it cannot be set") }
        var number: Int64?
        switch kind {
        case .boolean:
            switch typed.lowercased() {
            case "1", "true", "on", "yes": number = 1
            case "0", "false", "off", "no": number = 0
            default: throw refuse()
            }
        case .menu, .integerMenu:
            let wanted = Self.variableName(typed)
            number = Int64(typed) ?? menu.first { Self.variableName($0.name) == wanted }?.index
            guard let number, menu.contains(where: { $0.index == number }) else { throw refuse() }
        default:
            guard let parsed = Int64(typed) else { throw refuse(" (not a whole number)") }
            number = parsed
            guard parsed >= minimum, parsed <= maximum else { throw refuse(" (out of range)") }
            if step > 1, (parsed - minimum) % step != 0 { throw refuse(" (off the step)") }
        }
        return number!
    }

    /// One line as v4l2-ctl --list-ctrls-menus prints it, then the menu entries.
    public var listing: [String] {
        var fields: [String] = []
        switch kind {
        case .boolean: break
        case .menu, .integerMenu: fields += ["min=\(minimum)", "max=\(maximum)"]
        default: fields += ["min=\(minimum)", "max=\(maximum)", "step=\(step)"]
        }
        if kind != .button { fields.append("default=\(defaultValue)") }
        if let value {
            let entry = menu.first { $0.index == value }.map { " (\($0.name))" } ?? ""
            fields.append("value=\(value)\(entry)")
        }
        let flags = [readOnly ? "read-only" : nil, inactive ? "inactive" : nil, writeOnly ? "write-only" : nil].compactMap { $0 }
        if !flags.isEmpty { fields.append("flags=" + flags.joined(separator: ",")) }
        let kindText = "(\(kind.rawValue))".padding(toLength: 9, withPad: " ", startingAt: 0)
        var lines = ["\(String(repeating: " ", count: max(0, 30 - name.count)))\(name) \(String(format: "0x%08x", id)) \(kindText): \(fields.joined(separator: " "))"]
        lines += menu.map { "\(String(repeating: " ", count: 34))\($0.index): \($0.name)" }
        return lines
    }
}

/// The controls of an open device: read them all, read or set one.
public struct V4L2Controls {
    public let fd: Int32
    public let path: String

    public init(fd: Int32, path: String) {
        self.fd = fd
        self.path = path
    }

    /// Every control the driver lists (disabled ones left out), in the driver's order.
    public func all() -> [V4L2Control] {
        var controls: [V4L2Control] = []
        var section = ""
        var query = v4l2_query_ext_ctrl()
        query.id = cv4l2_ctrl_flag_next_ctrl()
        while cv4l2_query_ext_control(fd, &query) == 0 {
            defer {
                let id = query.id
                query = v4l2_query_ext_ctrl()
                query.id = id | cv4l2_ctrl_flag_next_ctrl()
            }
            let title = V4L2Device.string(query.name)
            if query.type == cv4l2_ctrl_type_ctrl_class() { section = title; continue }
            guard query.flags & cv4l2_ctrl_flag_disabled() == 0, query.elems <= 1 else { continue }
            controls.append(control(query, title: title, section: section))
        }
        return controls
    }

    private func control(_ query: v4l2_query_ext_ctrl, title: String, section: String) -> V4L2Control {
        let kinds: [UInt32: V4L2Control.Kind] = [
            cv4l2_ctrl_type_integer(): .integer, cv4l2_ctrl_type_boolean(): .boolean, cv4l2_ctrl_type_menu(): .menu,
            cv4l2_ctrl_type_integer_menu(): .integerMenu, cv4l2_ctrl_type_button(): .button,
            cv4l2_ctrl_type_integer64(): .integer64, cv4l2_ctrl_type_bitmask(): .bitmask,
        ]
        let kind = kinds[query.type] ?? .other
        var menu: [V4L2Control.MenuEntry] = []
        if kind == .menu || kind == .integerMenu, query.minimum >= 0, query.maximum <= 255 {
            for index in query.minimum...query.maximum {
                var item = v4l2_querymenu()
                item.id = query.id
                item.index = UInt32(index)
                guard cv4l2_query_menu(fd, &item) == 0 else { continue }
                let name = kind == .menu ? V4L2Device.string(item.name) : String(item.value)
                menu.append(.init(index: index, name: name))
            }
        }
        let writeOnly = query.flags & cv4l2_ctrl_flag_write_only() != 0
        var value: Int64?
        if !writeOnly && kind != .button && kind != .other {
            var read: Int64 = 0
            if cv4l2_get_control(fd, query.id, &read, kind == .integer64 ? 1 : 0) == 0 { value = read }
        }
        return V4L2Control(id: query.id, name: V4L2Control.variableName(title), kind: kind, minimum: query.minimum,
                           maximum: query.maximum, step: Int64(query.step), defaultValue: query.default_value, value: value,
                           menu: menu, readOnly: query.flags & cv4l2_ctrl_flag_read_only() != 0,
                           inactive: query.flags & cv4l2_ctrl_flag_inactive() != 0, writeOnly: writeOnly, section: section)
    }

    /// The current value of a control, or nil when the driver will not say.
    public func value(of control: V4L2Control) -> Int64? {
        var read: Int64 = 0
        return cv4l2_get_control(fd, control.id, &read, control.kind == .integer64 ? 1 : 0) == 0 ? read : nil
    }

    /// Sets a control; the driver's refusal becomes one line naming the control and what it allows.
    public func set(_ control: V4L2Control, to value: Int64) throws {
        guard cv4l2_set_control(fd, control.id, value, control.kind == .integer64 ? 1 : 0) != 0 else { return }
        let code = errno
        if control.readOnly, code == EACCES || code == EBUSY {
            throw MarkerKitError.invalidArgument("\(control.name) is read-only on camera '\(path)'; it cannot be set")
        }
        switch code {
        case EACCES, EBUSY:
            let mode = control.automaticMode.map { "while \($0) is on: set \($0)=\($0 == "auto_exposure" ? "1" : "0") before it" }
            throw MarkerKitError.invalidArgument("\(control.name) cannot be set \(mode ?? "now: an automatic mode of camera '\(path)' drives it")")
        case ERANGE, EINVAL:
            throw MarkerKitError.invalidArgument("\(control.name)=\(value) is not allowed: \(control.name) takes \(control.allowed)")
        case ENODEV, EIO:
            throw MarkerKitError.cameraLost("camera '\(path)' is gone (unplugged?)")
        default:
            throw MarkerKitError.badInput("cannot set \(control.name) of camera '\(path)': \(String(cString: strerror(code)))")
        }
    }

    /// Applies `name=value` settings in the order given (so `focus_automatic_continuous=0` may come before
    /// `focus_absolute=40`), each checked against what the control allows before it is sent.
    public func apply(_ settings: [String]) throws -> [V4L2Control] {
        var applied: [V4L2Control] = []
        for setting in settings {
            let (name, text) = try Self.split(setting)
            let controls = all()
            guard let control = controls.first(where: { $0.name == name }) else {
                let names = controls.filter { !$0.readOnly }.map(\.name).joined(separator: ", ")
                throw MarkerKitError.advised(.invalidArgument("camera '\(path)' has no control '\(name)'; it has \(names.isEmpty ? "none" : names)"), .listCameras)
            }
            try set(control, to: try control.value(from: text))
            applied.append(control)
        }
        return applied
    }

    /// `name=value` in two, or one line saying how it is written.
    public static func split(_ setting: String) throws -> (name: String, value: String) {
        let parts = setting.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].trimmingCharacters(in: .whitespaces).isEmpty else {
            throw MarkerKitError.advised(.invalidArgument("'\(setting)': write a control as NAME=VALUE, e.g. focus_automatic_continuous=0"), .listCameras)
        }
        return (parts[0].trimmingCharacters(in: .whitespaces), String(parts[1]))
    }
}

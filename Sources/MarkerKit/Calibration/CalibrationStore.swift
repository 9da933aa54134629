import Foundation

/// The calibration store: calibrations stored as `NAME.yaml` (OpenCV FileStorage YAML) in one folder,
/// found by name, never replaced without `force`.
///
/// Which folder (`located(environment:workingDirectory:)`): `$MARKERKIT_CALIBRATIONS`, else a project's
/// own `Calibrations/` when the working folder has one, else the user's data folder
/// (`$XDG_DATA_HOME/markerkit/calibrations`, `~/.local/share/...` by default), so that a name stored
/// from one folder is found from any other.
///
/// A name is the same name however it was typed: it is taken in Unicode NFC (so "caméra" typed with a
/// precomposed é and with e + U+0301 is one calibration), and everywhere a name comes in (storing,
/// finding, listing, `resolve`) the same rule of `normalized(name:)` applies.
public struct CalibrationStore: Sendable {
    /// The name of a calibration made without one.
    public static let defaultName = "camera"

    /// Why the store is the folder it is.
    public enum Origin: Sendable, Equatable {
        /// `$MARKERKIT_CALIBRATIONS` names it.
        case environment
        /// The working folder's own `Calibrations/`.
        case project
        /// The user's data folder, `$XDG_DATA_HOME/markerkit/calibrations`.
        case userData
        /// A folder the caller gave.
        case given
    }

    /// The store's folder, an absolute path.
    public let directory: URL
    public let origin: Origin
    /// Messages name the folder "the calibration store" and files by their names only, never an absolute
    /// path: for a store served to a browser.
    public private(set) var hidesPath = false

    /// The store for this process's environment and working folder.
    public static var `default`: CalibrationStore {
        located(environment: ProcessInfo.processInfo.environment, workingDirectory: FileManager.default.currentDirectoryPath)
    }

    /// `$MARKERKIT_CALIBRATIONS`; else `Calibrations/` in `workingDirectory` when it is a folder; else
    /// `$XDG_DATA_HOME/markerkit/calibrations` (an absolute `XDG_DATA_HOME`, as the XDG specification
    /// asks), else `$HOME/.local/share/markerkit/calibrations`; with no home either, the project's folder.
    public static func located(environment: [String: String], workingDirectory: String) -> CalibrationStore {
        let working = URL(fileURLWithPath: workingDirectory, isDirectory: true)
        if let path = environment["MARKERKIT_CALIBRATIONS"], !path.isEmpty {
            return CalibrationStore(directory: URL(fileURLWithPath: path, relativeTo: working), origin: .environment)
        }
        let project = working.appendingPathComponent("Calibrations", isDirectory: true)
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: project.path, isDirectory: &isDirectory), isDirectory.boolValue {
            return CalibrationStore(directory: project, origin: .project)
        }
        let data: URL? = if let xdg = environment["XDG_DATA_HOME"], xdg.hasPrefix("/") {
            URL(fileURLWithPath: xdg, isDirectory: true)
        } else if let home = environment["HOME"], home.hasPrefix("/") {
            URL(fileURLWithPath: home, isDirectory: true).appendingPathComponent(".local/share", isDirectory: true)
        } else {
            nil
        }
        guard let data else { return CalibrationStore(directory: project, origin: .project) }
        return CalibrationStore(directory: data.appendingPathComponent("markerkit/calibrations", isDirectory: true), origin: .userData)
    }

    /// A store in `directory` (a relative path is taken from the working folder).
    public init(directory: URL, origin: Origin = .given) {
        self.directory = directory.absoluteURL.standardizedFileURL
        self.origin = origin
    }

    /// The same store, named in messages without its path.
    public func hidingPath() -> CalibrationStore {
        var store = self
        store.hidesPath = true
        return store
    }

    /// Where the store is and why, as `calibrations list` says it.
    public var whereabouts: String {
        let why = switch origin {
        case .environment: "named by MARKERKIT_CALIBRATIONS"
        case .project: "the working folder's own Calibrations/"
        case .userData: "your data folder: the working folder has no Calibrations/ and MARKERKIT_CALIBRATIONS is not set"
        case .given: "the given folder"
        }
        return "\(shownDirectory) (\(why))"
    }

    /// The extensions a stored calibration may have.
    static let extensions = ["yaml", "yml", "xml", "json"]

    /// The extensions of every calibration file MarkerKit reads: an argument ending in one of them is a
    /// file's name, never a stored name.
    static var fileExtensions: Set<String> { Set(extensions + CalibrationFormat.allCases.map(\.fileExtension)) }

    /// The longest name, in UTF-8 bytes: with the extension and a temporary file's suffix it stays well
    /// under the 255 bytes a file name may have.
    public static let maximumNameBytes = 100

    /// A calibration name in the form it is stored under (NFC), or why it cannot be one. A name is
    /// letters and digits of any script (with their accents), `-`, `_` and `.`; not starting with a dot
    /// or an accent; no invisible characters (zero-width joiners and spaces, bidi controls, byte-order
    /// marks: any Unicode format or control character or default-ignorable code point), so that two
    /// names that look alike are alike; at most `maximumNameBytes` bytes of UTF-8; not ending in a
    /// calibration file's extension (`.yaml`, `.json`, ...), which would read as a file's name.
    public static func normalized(name: String) throws -> String {
        let nfc = name.precomposedStringWithCanonicalMapping
        func refuse(_ why: String) -> MarkerKitError {
            MarkerKitError.invalidArgument("calibration name '\(shown(name: name))': \(why)")
        }
        let rule = "use letters, digits, - _ . (not starting with a dot)"
        guard !nfc.isEmpty else { throw refuse("empty; \(rule)") }
        guard nfc.utf8.count <= maximumNameBytes else {
            throw refuse("\(nfc.utf8.count) bytes of UTF-8, more than \(maximumNameBytes)")
        }
        guard !nfc.hasPrefix(".") else { throw refuse(rule) }
        for scalar in nfc.unicodeScalars {
            let properties = scalar.properties
            if properties.isDefaultIgnorableCodePoint || [.format, .control, .lineSeparator, .paragraphSeparator, .spaceSeparator,
                                                           .privateUse, .surrogate, .unassigned].contains(properties.generalCategory) {
                throw refuse("\(codePoint(scalar)) is an invisible or unassigned character; \(rule)")
            }
        }
        let marks: Set<Unicode.GeneralCategory> = [.nonspacingMark, .spacingMark, .enclosingMark]
        let lettersAndDigits: Set<Unicode.GeneralCategory> = [.uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter,
                                                               .otherLetter, .decimalNumber, .letterNumber, .otherNumber]
        for character in nfc {
            let scalars = Array(character.unicodeScalars)
            let base = scalars[0]
            if marks.contains(base.properties.generalCategory) {
                throw refuse("it starts with the combining mark \(codePoint(base)); \(rule)")
            }
            if "-_.".unicodeScalars.contains(base) {
                guard scalars.count == 1 else { throw refuse("a combining mark on '\(Character(base))'; \(rule)") }
                continue
            }
            // A letter or digit, with its accents (and, in scripts that join letters, the letters it joins).
            guard scalars.allSatisfy({ lettersAndDigits.contains($0.properties.generalCategory) || marks.contains($0.properties.generalCategory) }),
                  lettersAndDigits.contains(base.properties.generalCategory) else { throw refuse(rule) }
        }
        let ext = (nfc as NSString).pathExtension.lowercased()
        guard !fileExtensions.contains(ext) else { throw refuse("it ends in .\(ext), which names a file, not a stored calibration") }
        return nfc
    }

    /// Checks a calibration name by the rule of `normalized(name:)`.
    public static func validate(name: String) throws { _ = try normalized(name: name) }

    /// A name as an error message shows it: invisible characters and combining marks as \u{...}, and at
    /// most 40 code points (300 combining marks make one character, and would make a long line).
    static func shown(name: String) -> String {
        var text = ""
        for (i, scalar) in name.unicodeScalars.enumerated() {
            if i == 40 { text += "…"; break }
            let category = scalar.properties.generalCategory
            if scalar.properties.isDefaultIgnorableCodePoint || [.format, .control, .lineSeparator, .paragraphSeparator, .privateUse,
                                                                 .surrogate, .unassigned, .nonspacingMark, .enclosingMark].contains(category) {
                text += "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
            } else {
                text.unicodeScalars.append(scalar)
            }
        }
        return text
    }

    static func codePoint(_ scalar: Unicode.Scalar) -> String {
        let hex = String(scalar.value, radix: 16, uppercase: true)
        return "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
    }

    /// The store's folder as messages name it: its absolute path, or "the calibration store" for a store
    /// that hides its path.
    public var shownDirectory: String {
        hidesPath ? "the calibration store" : directory.path + "/"
    }

    /// A file in the store as messages name it: its absolute path, or only its name for a store that
    /// hides its path.
    public func shown(_ file: URL) -> String {
        hidesPath ? file.lastPathComponent : file.path
    }

    /// The file a name is stored in: the one that exists (any of the store's extensions), else `NAME.yaml`,
    /// with the name in NFC. `CalibrationLocation(name:in:)` says the same with the format.
    public func url(for name: String) -> URL {
        let name = name.precomposedStringWithCanonicalMapping
        return storedFile(for: name) ?? directory.appendingPathComponent("\(name).yaml")
    }

    /// The file stored under `name` (taken in NFC), if any; nil for a name the store cannot hold.
    public func storedFile(for name: String) -> URL? {
        guard let name = try? Self.normalized(name: name) else { return nil }
        return Self.extensions.lazy.map { directory.appendingPathComponent("\(name).\($0)") }
            .first { FileManager.default.fileExists(atPath: $0.path) }
    }

    /// Stored calibration names, sorted: the files of the store whose names are calibration names
    /// (a file put there by hand under a name the store would refuse is not listed, as it could not be
    /// asked for).
    public func names() -> [String] {
        let files = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return files.filter { !$0.hasPrefix(".") && Self.extensions.contains(($0 as NSString).pathExtension.lowercased()) }
            .map { ($0 as NSString).deletingPathExtension }
            .filter { (try? Self.normalized(name: $0)) == $0 }
            .sorted()
    }

    /// Whether `argument` names a file rather than a stored calibration: it contains a `/`, or ends in
    /// the extension of a calibration file (`.yaml`, `.yml`, `.xml`, `.json`, `.txt`, `.cameramodel`).
    public static func looksLikePath(_ argument: String) -> Bool {
        argument.contains("/") || fileExtensions.contains((argument as NSString).pathExtension.lowercased())
    }

    /// The calibration an argument such as `--calibration NAME|FILE` means. A bare name (no `/`, no
    /// calibration file's extension) is looked up in the store first and only there, so a file of that
    /// name in the working folder never stands in for the stored calibration (give `./NAME` for the file).
    /// An argument that looks like a path (`looksLikePath`) is read as a file when that file exists, else
    /// looked up in the store as well.
    public func resolve(_ nameOrPath: String) throws -> CameraCalibration {
        if Self.looksLikePath(nameOrPath) {
            let asPath = URL(fileURLWithPath: nameOrPath)
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: asPath.path, isDirectory: &isDirectory), !isDirectory.boolValue {
                return try CameraCalibration.read(from: asPath)
            }
        }
        if let stored = storedFile(for: nameOrPath) { return try CameraCalibration.read(from: stored, shown: shown(stored)) }
        let known = names()
        var message = "no calibration '\(Self.shown(name: nameOrPath))': "
        if Self.looksLikePath(nameOrPath) {
            message += "no such file, nor a name in \(shownDirectory)"
        } else {
            message += "not a name in \(shownDirectory)"
            if FileManager.default.fileExists(atPath: nameOrPath) { message += "; for the file '\(nameOrPath)' in the working folder, give ./\(nameOrPath)" }
        }
        throw MarkerKitError.missingInput(message + (known.isEmpty ? "" : " (stored: \(known.joined(separator: ", ")))"))
    }

    /// Stores `calibration` under its name (`CalibrationLocation(name:in:)`, which takes the name in
    /// NFC); creates the folder when missing.
    @discardableResult
    public func save(_ calibration: CameraCalibration, force: Bool) throws -> URL {
        let location = try CalibrationLocation(name: calibration.name, in: self)
        var calibration = calibration
        calibration.name = location.name ?? calibration.name
        try location.write(calibration, force: force)
        return location.url
    }
}

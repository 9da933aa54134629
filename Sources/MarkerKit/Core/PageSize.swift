import Foundation
import MarkerKitTemplates

/// A sheet of paper: a preset from `Templates/pages.json` (A0-A5, Letter, Legal, Tabloid) or a custom
/// `WxH` size with a unit (`200x300mm`, `8.5x11in`).
public struct PageSize: Equatable, Sendable, CustomStringConvertible {
    public let name: String
    public let width: Length
    public let height: Length

    public init(name: String, width: Length, height: Length) {
        self.name = name
        self.width = width
        self.height = height
    }

    public var isLandscape: Bool { width > height }

    /// The same paper turned: the long side horizontal.
    public var landscape: PageSize {
        isLandscape ? self : PageSize(name: "\(name) landscape", width: height, height: width)
    }

    /// The same paper upright: the long side vertical.
    public var portrait: PageSize {
        guard isLandscape else { return self }
        let base = name.hasSuffix(" landscape") ? String(name.dropLast(" landscape".count)) : name
        return PageSize(name: base, width: height, height: width)
    }

    /// "A4 (210 x 297 mm)"; a page of no preset, named by its size: "64.286 x 69.536 mm".
    public var description: String {
        let size = "\(Length.format(width.millimetres)) x \(Length.format(height.millimetres)) mm"
        return name == Self.customName(width: width, height: height) ? size : "\(name) (\(size))"
    }

    /// A page of no preset: named by its size, "200x300mm".
    public init(width: Length, height: Length) {
        self.init(name: Self.customName(width: width, height: height), width: width, height: height)
    }

    static func customName(width: Length, height: Length) -> String {
        "\(Length.format(width.millimetres))x\(Length.format(height.millimetres))mm"
    }

    /// A preset by name (any case) or a custom size.
    public init(parsing text: String) throws {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if let preset = try PageSize.presets().first(where: { $0.name.lowercased() == trimmed.lowercased() }) {
            self = preset
            return
        }
        let names = try PageSize.presets().map(\.name).joined(separator: ", ")
        guard let (widthPart, heightPart) = InputRange.halves(trimmed), !widthPart.isEmpty, !heightPart.isEmpty,
              widthPart.first!.isNumber || widthPart.first == "." else {
            throw MarkerKitError.invalidArgument("unknown page '\(text)': use one of \(names), or WxH with a unit such as 200x300mm")
        }
        // "200x300mm": the unit written once, after the height, applies to both sides.
        let (_, heightUnit) = Length.split(heightPart)
        let widthText = Length.split(widthPart).1.isEmpty ? widthPart + heightUnit : widthPart
        let width = try Length.positive(widthText, what: "page width in '\(text)'")
        let height = try Length.positive(heightPart, what: "page height in '\(text)'")
        self.init(width: width, height: height)
    }

    private struct PresetFile: Decodable {
        struct Page: Decodable { let name: String; let width: Double; let height: Double }
        let units: String
        let pages: [Page]
    }

    /// The presets in `Templates/pages.json`, in file order.
    public static func presets() throws -> [PageSize] {
        try presetCache.get()
    }

    private static let presetCache: Result<[PageSize], Error> = Result {
        guard let url = TemplateFiles.url("pages.json") else {
            throw MarkerKitError.internalFailure("the bundled Templates/pages.json is missing from this installation")
        }
        do {
            let file = try JSONDecoder().decode(PresetFile.self, from: Data(contentsOf: url))
            let unit = try Length(parsing: "1" + file.units, what: "units of pages.json")
            return file.pages.map {
                PageSize(name: $0.name, width: Length(millimetres: $0.width * unit.millimetres),
                         height: Length(millimetres: $0.height * unit.millimetres))
            }
        } catch {
            throw MarkerKitError.internalFailure("the bundled Templates/pages.json is malformed: \(error)")
        }
    }
}

import Foundation
import MarkerKitTemplates

/// How sheets are drawn (type sizes, footer, scale bar, cut lines), from `Templates/sheets.json`.
/// Every length is in millimetres.
public struct SheetStyle: Decodable, Sendable {
    public struct Label: Decodable, Sendable {
        public let fontSizePerMarkerSide: Double
        public let minFontSize: Double
        public let maxFontSize: Double
        public let lineHeight: Double
    }

    public struct Footer: Decodable, Sendable {
        public let fontSize: Double
        public let scaleBarThickness: Double
        public let scaleBarLengths: [Double]
        public let scaleBarSegment: Double
        public let gapAbove: Double
    }

    public let units: String
    public let fontFamily: String
    public let label: Label
    public let footer: Footer
    public let cutLineWidth: Double
    public let cutLineDash: [Double]
    public let ambiguousColor: [Double]

    /// The colour that marks ambiguous IDs.
    public var ambiguous: Color {
        ambiguousColor.count == 3 ? Color(ambiguousColor[0], ambiguousColor[1], ambiguousColor[2]) : Color(0.8, 0, 0)
    }

    /// The label's font size for a marker of this side.
    public func labelFontSize(markerSide: Double) -> Double {
        min(label.maxFontSize, max(label.minFontSize, markerSide * label.fontSizePerMarkerSide))
    }

    /// Height of the footer strip: the scale bar, its caption and one line saying what the page holds.
    public var footerHeight: Double {
        footer.gapAbove + footer.scaleBarThickness + 2 * footer.fontSize * label.lineHeight + 1
    }

    public static func bundled() throws -> SheetStyle { try cache.get() }

    private static let cache: Result<SheetStyle, Error> = Result {
        guard let url = TemplateFiles.url("sheets.json") else {
            throw MarkerKitError.internalFailure("the bundled Templates/sheets.json is missing from this installation")
        }
        do {
            let decoder = JSONDecoder()
            decoder.keyDecodingStrategy = .convertFromSnakeCase
            let style = try decoder.decode(SheetStyle.self, from: Data(contentsOf: url))
            guard style.units == "mm" else {
                throw MarkerKitError.internalFailure("Templates/sheets.json must be in mm, not \(style.units)")
            }
            return style
        } catch let error as MarkerKitError {
            throw error
        } catch {
            throw MarkerKitError.internalFailure("the bundled Templates/sheets.json is malformed: \(error)")
        }
    }
}

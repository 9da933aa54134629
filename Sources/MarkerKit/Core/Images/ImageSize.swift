import Foundation

/// A size in pixels a user gives, WIDTHxHEIGHT (`1280x720`): camera frames, renders, bench frames. Each
/// side is 16-8192, so that no buffer size computed from one overflows or asks for gigabytes.
public struct ImageSize: Equatable, Sendable, CustomStringConvertible {
    public let width: Int, height: Int

    /// The sides a user may ask for.
    public static let sides = 16...8192

    /// 1280x720, a webcam's usual frame.
    public static let webcam = ImageSize(uncheckedWidth: 1280, height: 720)

    public init(width: Int, height: Int) throws {
        guard Self.sides.contains(width), Self.sides.contains(height) else {
            throw MarkerKitError.invalidArgument("\(width)x\(height) pixels is outside \(Self.sides.lowerBound)-\(Self.sides.upperBound) a side")
        }
        self.init(uncheckedWidth: width, height: height)
    }

    private init(uncheckedWidth width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    /// Parses `1280x720`.
    public static func parse(_ text: String) throws -> ImageSize {
        let (width, height) = try InputRange.pair(text, in: sides, shape: "WIDTHxHEIGHT in pixels", example: "1280x720")
        return ImageSize(uncheckedWidth: width, height: height)
    }

    public var description: String { "\(width)x\(height)" }
}

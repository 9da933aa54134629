import ArgumentParser
import MarkerKit

// Option values parsed by the argument parser, so that a bad value is refused before `run()` with the
// option named once: "The value '40' is invalid for '--size <length>': it has no unit: ...".

// Sizes in pixels (WIDTHxHEIGHT, 16-8192 a side) are the library's `ImageSize`.

/// A board's inner corners, COLUMNSxROWS (9x6 for 10x7 squares).
struct InnerCorners {
    let columns: Int, rows: Int

    static func parse(_ text: String) throws -> InnerCorners {
        let (columns, rows) = try Checkerboard.parseInnerCorners(text)
        return InnerCorners(columns: columns, rows: rows)
    }
}

/// A board's squares, COLUMNSxROWS (5x7), 2-100 each.
struct SquareCount {
    let columns: Int, rows: Int

    static func parse(_ text: String) throws -> SquareCount {
        let (columns, rows) = try CharucoBoard.parseSquares(text)
        return SquareCount(columns: columns, rows: rows)
    }
}

/// Lengths with a unit (25mm, 1in): greater than zero (sizes), or not negative (margins, gaps).
/// A size in the image: pixels, written with or without "px" (0.3px), more than zero.
enum PixelsArgument {
    static func parse(_ text: String) throws -> Double {
        let number = text.lowercased().hasSuffix("px") ? String(text.dropLast(2)) : text
        guard let value = Double(number.trimmingCharacters(in: .whitespaces)), value.isFinite, value > 0 else {
            throw MarkerKitError.invalidArgument("'\(text)' is not a size in pixels such as 0.3px")
        }
        return try CaptureSession.checkedSigmaTarget(value)
    }
}

enum LengthArgument {
    static func positive(_ text: String) throws -> Length { try Length.positive(text) }
    static func nonNegative(_ text: String) throws -> Length { try Length.nonNegative(text) }
}

/// The lens models `calibrate` solves for, by the library's list.
extension CameraCalibration.Model: ExpressibleByArgument {
    public init?(argument: String) {
        guard let model = try? Self.solvable(named: argument) else { return nil }
        self = model
    }

    public static var allValueStrings: [String] { solvable.map(\.rawValue) }
}

extension CalibrationFormat: ExpressibleByArgument {
    public init?(argument: String) { self.init(rawValue: argument.lowercased()) }
}

/// A camera's pixel format, or auto.
enum PixelFormatArgument: String, ExpressibleByArgument, CaseIterable {
    case auto, yuyv, mjpeg, grey

    var cameraFormat: PixelConversion.CameraFormat? { PixelConversion.CameraFormat(rawValue: rawValue) }
}

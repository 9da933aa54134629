import Foundation

/// How MarkerKit writes and reads its JSON files: snake_case keys, pretty and sorted, a final newline.
public enum JSONFile {
    public static func encode<T: Encodable>(_ value: T, snakeCase: Bool = true) throws -> Data {
        let encoder = JSONEncoder()
        if snakeCase { encoder.keyEncodingStrategy = .convertToSnakeCase }
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        var data = try encoder.encode(value)
        data.append(0x0A)
        return data
    }

    public static func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return try decoder.decode(type, from: data)
    }
}

/// A MarkerKit JSON file that names what it is in its `format` key (board specs, render truth).
public protocol FormattedJSONFile: Codable {
    /// What the file is called in error messages ("board spec").
    static var fileKind: String { get }
    /// The value its `format` key must have.
    static var formatName: String { get }
    var format: String { get }
    /// The file from its bytes, every value checked; `source` names the file in errors.
    static func decode(_ data: Data, source: String) throws -> Self
}

extension FormattedJSONFile {
    /// Reads the file; every failure names it.
    public static func read(from url: URL) throws -> Self {
        try decode(MarkerKitError.contents(of: url, what: fileKind), source: url.path)
    }

    /// JSON of this type with the right `format`, before the type's own checks.
    static func decodeFormatted(_ data: Data, source: String) throws -> Self {
        let file: Self
        do {
            file = try JSONFile.decode(Self.self, from: data)
        } catch {
            throw MarkerKitError.badInput("\(fileKind) '\(source)' is not a \(formatName) JSON file")
        }
        guard file.format == formatName else {
            throw MarkerKitError.badInput("\(fileKind) '\(source)' has format '\(file.format)', expected '\(formatName)'")
        }
        return file
    }
}

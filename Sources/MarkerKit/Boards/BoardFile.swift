import Foundation

/// What a `--board` file of `detect` and `track` holds, told by its `format`: a board spec
/// (`markerkit-board`, a ChArUco board whose corners are found) or a marker map (`markerkit-marker-map`,
/// whose pose is found).
public enum BoardFile: Sendable {
    case charuco(CharucoBoard)
    case map(MarkerMap)

    public static func read(from url: URL) throws -> BoardFile {
        struct Format: Decodable { let format: String }
        let data = try MarkerKitError.contents(of: url, what: "board")
        if (try? JSONDecoder().decode(Format.self, from: data))?.format == MarkerMap.formatName {
            return .map(try MarkerMap.decode(data, source: url.path))
        }
        return .charuco(try BoardSpec.decode(data, source: url.path).charucoBoard())
    }

    /// The dictionary its markers are read in.
    public func dictionary() throws -> MarkerDictionary {
        switch self {
        case .charuco(let board): board.dictionary
        case .map(let map): try map.markerDictionary()
        }
    }
}

import Foundation

/// What a `--board` file of `detect` and `track` holds, told by its `format`: a board spec
/// (`markerkit-board`, a ChArUco board or a checkerboard whose corners are found) or a marker map
/// (`markerkit-marker-map`, whose pose is found).
public enum BoardFile: Sendable {
    case charuco(CharucoBoard)
    case checkerboard(Checkerboard)
    case map(MarkerMap)

    public static func read(from url: URL) throws -> BoardFile {
        struct Format: Decodable { let format: String }
        let data = try MarkerKitError.contents(of: url, what: "board")
        if (try? JSONDecoder().decode(Format.self, from: data))?.format == MarkerMap.formatName {
            return .map(try MarkerMap.decode(data, source: url.path))
        }
        switch try BoardSpec.decode(data, source: url.path).calibrationTarget() {
        case .charuco(let board): return .charuco(board)
        case .checkerboard(let board): return .checkerboard(board)
        }
    }

    /// The dictionary its markers are read in (none for a checkerboard).
    public func dictionary() throws -> MarkerDictionary? {
        switch self {
        case .charuco(let board): board.dictionary
        case .checkerboard: nil
        case .map(let map): try map.markerDictionary()
        }
    }
}

import ArgumentParser
import MarkerKit

extension MarkerDictionary: ExpressibleByArgument {
    public init?(argument: String) {
        guard let name = Name(parsing: argument) else { return nil }
        self = .named(name)
    }

    public var defaultValueDescription: String { shortName }

    public static var allValueStrings: [String] { Name.allCases.map(\.shortName) }
}

/// `--dictionary`: which marker code is read or drawn, for every command that reads or draws markers.
struct DictionaryOption: ParsableArguments {
    @Option(help: ArgumentHelp(
        "The markers' dictionary: aruco-original (OpenCV's DICT_ARUCO_ORIGINAL), 5x5_50, 5x5_100, 5x5_250 or 5x5_1000 (OpenCV's DICT_5X5_*); OpenCV's names are accepted too.",
        valueName: "name"))
    var dictionary: MarkerDictionary = .arucoOriginal
}

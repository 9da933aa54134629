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
        "The markers' dictionary, any of OpenCV's predefined ones (aruco-original is OpenCV's DICT_ARUCO_ORIGINAL); OpenCV's names (DICT_4X4_50, DICT_APRILTAG_36h11) are accepted too, in any case.",
        valueName: "name"))
    var dictionary: MarkerDictionary = .arucoOriginal
}

import Foundation

/// When a frame gives no marker of the dictionary asked for: which other dictionaries read markers there,
/// and how many, so that `detect` can say which `--dictionary` the markers are (a 4x4 board read as
/// DICT_ARUCO_ORIGINAL gives 0 markers and, without this, no clue).
public enum DictionaryHint {
    public struct Reading: Sendable, Equatable {
        public let dictionary: MarkerDictionary
        public let markers: Int
    }

    /// Every other dictionary run on the image (default parameters); of the dictionaries sharing one list
    /// of codes (DICT_4X4_50 to _1000) the one reading the most, the smallest of equals; those reading some,
    /// most first (then in `MarkerDictionary.Name` order).
    public static func readings(in image: GrayImage, besides asked: MarkerDictionary,
                                parameters: DetectorParameters = DetectorParameters()) throws -> [Reading] {
        var best: [String: Reading] = [:]
        var order: [String] = []
        for name in MarkerDictionary.Name.allCases where name != asked.id {
            let dictionary = MarkerDictionary.named(name)
            let found = try MarkerDetector(parameters: parameters, dictionary: dictionary).detect(in: image).count
            guard found > 0 else { continue }
            let list = name.codeList
            if let kept = best[list], kept.markers >= found { continue }
            if best[list] == nil { order.append(list) }
            best[list] = Reading(dictionary: dictionary, markers: found)
        }
        return order.compactMap { best[$0] }.enumerated().sorted { a, b in
            a.element.markers != b.element.markers ? a.element.markers > b.element.markers : a.offset < b.offset
        }.map(\.element)
    }

    /// The readings of an image file that gave no marker; none when the image cannot be read a second
    /// time (a hint that cannot be had is no error).
    public static func readings(forImageAt url: URL, besides asked: MarkerDictionary) -> [Reading] {
        guard let image = try? GrayImage(contentsOf: url), let readings = try? readings(in: image, besides: asked) else { return [] }
        return readings
    }

    /// One line naming them, nil when there are none: "0 markers of DICT_ARUCO_ORIGINAL; DICT_4X4_50 reads
    /// 12, DICT_APRILTAG_16h5 reads 1".
    public static func line(_ readings: [Reading], asked: MarkerDictionary) -> String? {
        guard !readings.isEmpty else { return nil }
        return "0 markers of \(asked.name); " + readings.map { "\($0.dictionary.name) reads \($0.markers)" }.joined(separator: ", ")
    }
}

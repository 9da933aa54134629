import Foundation

/// A marker map (`markerkit-marker-map`): markers fixed to one rigid object, each with its four corners in
/// 3D in the map's own frame and unit, so that one pose can be found for the whole object from every
/// marker seen (a printed sheet, markers on a cube, on two walls, on a robot). Corners in the marker's
/// order (TL, TR, BR, BL, as the marker is read). `generate markers` writes the map of each page it
/// prints, in the page's frame: origin at the page's top-left corner, x to the right, y down the page, z
/// into the page, in mm.
public struct MarkerMap: FormattedJSONFile, Equatable, Sendable {
    public struct Marker: Codable, Equatable, Sendable {
        public let id: Int
        /// Four corners of x, y, z each.
        public let corners: [[Double]]

        public init(id: Int, corners: [[Double]]) {
            self.id = id
            self.corners = corners
        }

        /// The length of its first side (corner 1 to corner 2), in the map's unit.
        public var side: Double { (0..<3).map { corners[1][$0] - corners[0][$0] }.map { $0 * $0 }.reduce(0, +).squareRoot() }
    }

    public static let formatName = "markerkit-marker-map"
    public static let fileKind = "marker map"
    /// The largest coordinate a map may hold, in its unit (1 km in mm): beyond it a file is damaged.
    public static let largestCoordinate = 1e6

    public var format = MarkerMap.formatName
    public var formatVersion = 1
    /// The unit of every coordinate: mm, cm, m, in or pt.
    public var units = "mm"
    /// OpenCV's name of the markers' dictionary.
    public var dictionary: String
    /// What the frame is, in words (for the reader of the file).
    public var frame: String?
    public var markers: [Marker]
    public var generator = MarkerKitVersion.generator

    public init(dictionary: MarkerDictionary, markers: [Marker], units: String = "mm", frame: String? = nil) {
        self.dictionary = dictionary.name
        self.markers = markers
        self.units = units
        self.frame = frame
    }

    /// The markers' dictionary.
    public func markerDictionary() throws -> MarkerDictionary { try MarkerDictionary.parse(dictionary) }

    /// Millimetres in one of the map's unit.
    public var millimetresPerUnit: Double { Length.Unit(rawValue: units)?.millimetres ?? 1 }

    /// The corners of marker `id`, or nil when the map does not hold it.
    public func corners(of id: Int) -> [SIMD3<Double>]? {
        markers.first { $0.id == id }.map { $0.corners.map { SIMD3($0[0], $0[1], $0[2]) } }
    }

    /// Whether every corner lies on one plane (a sheet; not a cube): within 1e-9 of the map's extent of
    /// the plane through the first corner, the corner furthest from it and the corner furthest from that line.
    public var isPlanar: Bool { Self.arePlanar(markers.flatMap { $0.corners.map { SIMD3($0[0], $0[1], $0[2]) } }) }

    /// Whether `points` lie on one plane, as `isPlanar` decides it.
    public static func arePlanar(_ points: [SIMD3<Double>]) -> Bool {
        guard let first = points.first else { return true }
        func length(_ v: SIMD3<Double>) -> Double { (v * v).sum().squareRoot() }
        let far = points.max { length($0 - first) < length($1 - first) } ?? first
        let normal = points.map { cross(far - first, $0 - first) }.max { length($0) < length($1) } ?? .zero
        guard length(normal) > 0 else { return true }
        let extent = length(far - first)
        return points.allSatisfy { abs((($0 - first) * normal).sum()) / length(normal) <= 1e-9 * max(extent, 1) }
    }

    /// Where the maps of a sheet's pages go beside `sheet`: page 1's `NAME.json`, page k's `NAME-k.json`
    /// (the names PNG and SVG pages get).
    public static func files(besides sheet: URL, pages: Int) -> [URL] {
        let stem = sheet.deletingPathExtension().lastPathComponent, directory = sheet.deletingLastPathComponent()
        return (1...max(1, pages)).map { directory.appendingPathComponent(($0 == 1 ? stem : "\(stem)-\($0)") + ".json") }
    }

    public func encoded() throws -> Data { try JSONFile.encode(self) }

    /// A map from a file's bytes, every value checked; `source` names the file in errors.
    public static func decode(_ data: Data, source: String) throws -> MarkerMap {
        let map = try decodeFormatted(data, source: source)
        func refuse(_ why: String) -> MarkerKitError { .badInput("marker map '\(source)': \(why)") }
        guard map.formatVersion == 1 else { throw refuse("format version \(map.formatVersion) is not 1") }
        guard Length.Unit(rawValue: map.units) != nil else {
            throw refuse("unit '\(map.units)' is not one of \(Length.Unit.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        let dictionary: MarkerDictionary
        do { dictionary = try map.markerDictionary() } catch { throw refuse("dictionary '\(map.dictionary)' is not an OpenCV dictionary") }
        guard !map.markers.isEmpty else { throw refuse("it holds no marker") }
        var seen = Set<Int>()
        for marker in map.markers {
            guard (0..<dictionary.count).contains(marker.id) else { throw refuse("ID \(marker.id) is not in \(dictionary.name) (0-\(dictionary.count - 1))") }
            guard seen.insert(marker.id).inserted else { throw refuse("ID \(marker.id) is there twice") }
            guard marker.corners.count == 4, marker.corners.allSatisfy({ $0.count == 3 }) else {
                throw refuse("marker \(marker.id) needs four corners of three coordinates")
            }
            guard marker.corners.joined().allSatisfy({ $0.isFinite && abs($0) <= largestCoordinate }) else {
                throw refuse("marker \(marker.id) has a coordinate that is not a number within \(Int(largestCoordinate))")
            }
            let c = marker.corners.map { SIMD3($0[0], $0[1], $0[2]) }
            let area = cross(c[1] - c[0], c[3] - c[0]), side = ((c[1] - c[0]) * (c[1] - c[0])).sum().squareRoot()
            guard side > 0, (area * area).sum().squareRoot() > 1e-6 * side * side else {
                throw refuse("marker \(marker.id)'s corners do not span a square")
            }
        }
        return map
    }
}

/// The cross product.
func cross(_ a: SIMD3<Double>, _ b: SIMD3<Double>) -> SIMD3<Double> {
    SIMD3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x)
}

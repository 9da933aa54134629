import Foundation

/// A folder of real ChArUco photos as `../shared/data/charuco-real` lays it out: one sub-folder per set
/// and an `expected.json` giving per set the board (`squares`, `square_mm`, `marker_mm`, `dictionary`,
/// `legacy`) and per photo the markers and corners OpenCV 5.0's `CharucoDetector` found.
public struct CharucoPhotoSets: Sendable {
    public struct Photo: Decodable, Sendable {
        public let cv2_corners: Int
        public let cv2_markers: Int
    }

    public struct PhotoSet: Decodable, Sendable {
        public let dictionary: String
        public let squares: [Int]
        public let square_mm: Double
        public let marker_mm: Double
        public let legacy: Bool
        public let images: [String: Photo]

        public func board() throws -> CharucoBoard {
            guard squares.count == 2 else { throw MarkerKitError.badInput("a set's squares must be [x, y]") }
            return try CharucoBoard(squaresX: squares[0], squaresY: squares[1], square: .mm(square_mm), marker: .mm(marker_mm),
                                    dictionary: .parse(dictionary), legacy: legacy)
        }

        /// The photos' file names in numeric order (cal2 before cal10).
        public var files: [String] { images.keys.sorted { $0.compare($1, options: .numeric) == .orderedAscending } }
    }

    public let folder: URL
    public let sets: [String: PhotoSet]

    public init(folder: URL) throws {
        let url = folder.appendingPathComponent("expected.json")
        guard let data = try? Data(contentsOf: url) else {
            throw MarkerKitError.missingInput("cannot read '\(url.path)': a ChArUco photo folder needs an expected.json")
        }
        guard let sets = try? JSONDecoder().decode([String: PhotoSet].self, from: data) else {
            throw MarkerKitError.badInput("'\(url.path)' is not a map of set -> {dictionary, squares, square_mm, marker_mm, legacy, images}")
        }
        self.folder = folder
        self.sets = sets
    }

    public func set(_ name: String) throws -> PhotoSet {
        guard let set = sets[name] else { throw MarkerKitError.missingInput("no set '\(name)' in \(folder.path)/expected.json") }
        return set
    }

    public func gray(_ set: String, _ file: String) throws -> GrayImage {
        try Grayscale.image(from: Frame(contentsOf: folder.appendingPathComponent(set).appendingPathComponent(file)))
    }
}

/// Real ChArUco photos in the bench: per photo, MarkerKit's board corners and time against OpenCV 4.6's
/// ChArUco pipeline (detectMarkers, then interpolateCornersCharuco) in the same run, with OpenCV 5.0's
/// `CharucoDetector` count from the folder's expected.json beside them (OpenCV 5 is not linked here).
public struct CharucoPhotoBenchmark {
    public struct Case: Codable, Sendable {
        public let name: String
        public let width: Int
        public let height: Int
        /// Median milliseconds per photo, by contender (markerkit, opencv).
        public let milliseconds: [String: Double]
        /// Board corners found, by contender (markerkit, opencv, and opencv5 from expected.json).
        public let corners: [String: Int]
    }

    public let photos: CharucoPhotoSets
    public let repeats: Int

    public init(photos: CharucoPhotoSets, repeats: Int) {
        self.photos = photos
        self.repeats = repeats
    }

    /// One thread each (MarkerKit's workers and OpenCV's), as `calibrate --jobs N` gives each image one.
    public func run(progress: (String) -> Void = { _ in }) throws -> [Case] {
        let setting = WorkerPool.threads
        WorkerPool.setThreads(1)
        defer { WorkerPool.setThreads(setting) }
        var cases: [Case] = []
        for name in photos.sets.keys.sorted() {
            let set = try photos.set(name)
            let board = try set.board()
            let ours = CharucoDetector(board: board)
            let theirs = try OpenCVCharucoDetector(board: board)
            for file in set.files {
                progress("\(name)/\(file)")
                let image = try photos.gray(name, file)
                let (oursMs, oursCorners) = try Self.median(repeats) { try ours.detect(in: image).corners.count }
                let (theirsMs, theirsCorners) = try Self.median(repeats) { try theirs.detect(in: image).count }
                cases.append(Case(name: "\(name)/\(file)", width: image.width, height: image.height,
                                  milliseconds: ["markerkit": oursMs, "opencv": theirsMs],
                                  corners: ["markerkit": oursCorners, "opencv": theirsCorners, "opencv5": set.images[file]!.cv2_corners]))
            }
        }
        return cases
    }

    /// The median time of `repeats` runs (ms) and the last run's count.
    static func median(_ repeats: Int, _ body: () throws -> Int) rethrows -> (Double, Int) {
        var times: [Double] = [], count = 0
        for _ in 0..<max(1, repeats) {
            let start = ContinuousClock.now
            count = try body()
            let d = ContinuousClock.now - start
            times.append((Double(d.components.seconds) + Double(d.components.attoseconds) * 1e-18) * 1000)
        }
        return (times.sorted()[times.count / 2], count)
    }

    /// The cases as a table: corners and time per photo, with totals per set.
    public static func table(_ cases: [Case]) -> String {
        guard !cases.isEmpty else { return "" }
        var lines = ["", "ChArUco board corners on real photos: corners found and median ms per photo, one thread each (OpenCV 5.0: its CharucoDetector's count, from expected.json)",
                     "photo                                    size          markerkit          opencv 4.6      ratio    opencv 5.0"]
        func row(_ name: String, _ size: String, _ c: [String: Int], _ ms: [String: Double]) -> String {
            let mk = ms["markerkit"] ?? .nan, cv = ms["opencv"] ?? .nan
            return name.padding(toLength: 41, withPad: " ", startingAt: 0) + size.padding(toLength: 10, withPad: " ", startingAt: 0)
                + String(format: "%6d %8.1f ms %6d %8.1f ms  %6.2fx  %6d", c["markerkit"] ?? 0, mk, c["opencv"] ?? 0, cv, cv / mk, c["opencv5"] ?? 0)
        }
        var order: [String] = []
        var totals: [String: (corners: [String: Int], ms: [String: Double], photos: Int)] = [:]
        for c in cases {
            lines.append(row(c.name, "\(c.width)x\(c.height)", c.corners, c.milliseconds))
            let set = String(c.name.split(separator: "/").first ?? "")
            if totals[set] == nil { order.append(set) }
            var t = totals[set] ?? ([:], [:], 0)
            for (k, v) in c.corners { t.corners[k, default: 0] += v }
            for (k, v) in c.milliseconds { t.ms[k, default: 0] += v }
            t.photos += 1
            totals[set] = t
        }
        for set in order {
            let t = totals[set]!
            lines.append(row("\(set): all \(t.photos)", "", t.corners, t.ms))
        }
        return lines.joined(separator: "\n")
    }
}

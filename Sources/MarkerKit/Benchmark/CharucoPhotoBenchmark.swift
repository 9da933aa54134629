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
/// ChArUco pipeline (detectMarkers, then interpolateCornersCharuco) in the same run, and against the
/// newest OpenCV's `CharucoDetector` where a Python with it is given (`peer`); without one, that
/// detector's count from the folder's expected.json (OpenCV 5.0's when the set was made).
public struct CharucoPhotoBenchmark {
    public struct Case: Codable, Sendable {
        public let name: String
        public let width: Int
        public let height: Int
        /// Median milliseconds per photo, by contender (markerkit, opencv, and peer when one ran).
        public let milliseconds: [String: Double]
        /// Board corners found, by contender (markerkit, opencv, peer when one ran, and expected: the
        /// newest OpenCV's count in expected.json).
        public let corners: [String: Int]
        /// The peer's OpenCV version (`cv2.__version__`), when one ran.
        public var peer: String? = nil
    }

    public let photos: CharucoPhotoSets
    public let repeats: Int
    /// The newest OpenCV, as a Python has it, timed on the same photos.
    public let peer: PythonOpenCVPeer?

    public init(photos: CharucoPhotoSets, repeats: Int, peer: PythonOpenCVPeer? = nil) {
        self.photos = photos
        self.repeats = repeats
        self.peer = peer
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
            if let peer { progress("\(name): OpenCV \(peer.version) from \(peer.python.path)") }
            let peerTimes = try peer?.charuco(set, in: photos.folder.appendingPathComponent(name), repeats: repeats)
            for file in set.files {
                progress("\(name)/\(file)")
                let image = try photos.gray(name, file)
                let (oursMs, oursCorners) = try Self.median(repeats) { try ours.detect(in: image).corners.count }
                let (theirsMs, theirsCorners) = try Self.median(repeats) { try theirs.detect(in: image).count }
                var ms = ["markerkit": oursMs, "opencv": theirsMs]
                var corners = ["markerkit": oursCorners, "opencv": theirsCorners, "expected": set.images[file]!.cv2_corners]
                if let timing = peerTimes?[file] {
                    ms["peer"] = timing.milliseconds
                    corners["peer"] = timing.corners
                }
                cases.append(Case(name: "\(name)/\(file)", width: image.width, height: image.height, milliseconds: ms, corners: corners,
                                  peer: peer?.version))
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
        let peer = cases.first?.peer
        let last = peer.map { "     opencv \($0) (pip)      ratio" } ?? "    opencv 5.0"
        var lines = ["", "ChArUco board corners on real photos: corners found and median ms per photo, one thread each (ratio: opencv's time over markerkit's)"
                         + (peer == nil ? "; OpenCV 5.0: its CharucoDetector's count from expected.json (no peer Python to time the newest OpenCV)" : ""),
                     "photo                                    size          markerkit          opencv 4.6      ratio" + last]
        func row(_ name: String, _ size: String, _ c: [String: Int], _ ms: [String: Double]) -> String {
            let mk = ms["markerkit"] ?? .nan, cv = ms["opencv"] ?? .nan
            let tail = peer == nil ? String(format: "  %6d", c["expected"] ?? 0)
                : String(format: "  %6d %8.1f ms  %6.2fx", c["peer"] ?? 0, ms["peer"] ?? .nan, (ms["peer"] ?? .nan) / mk)
            return name.padding(toLength: 41, withPad: " ", startingAt: 0) + size.padding(toLength: 10, withPad: " ", startingAt: 0)
                + String(format: "%6d %8.1f ms %6d %8.1f ms  %6.2fx", c["markerkit"] ?? 0, mk, c["opencv"] ?? 0, cv, cv / mk) + tail
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

import Foundation

/// Folders of real chessboard photos, each with an `expected.json`: `pattern` [inner columns, inner rows]
/// and per photo whether OpenCV's finders find the board (`classic_4_6`, `sb_4_6`, `classic_new`, `sb_new`:
/// findChessboardCorners with adaptive threshold and normalise, findChessboardCornersSB, in OpenCV 4.6 and
/// in the newest OpenCV from pip), as `Tests/Fixtures/chessboard-*` lay them out.
public struct ChessboardPhotoSet: Sendable {
    public struct Expected: Decodable, Sendable {
        public let pattern: [Int]
        public let images: [String: [String: Bool]]
    }

    public let folder: URL
    public let expected: Expected
    public var name: String { folder.lastPathComponent }
    public var columns: Int { expected.pattern[0] }
    public var rows: Int { expected.pattern[1] }
    /// The photos' file names in numeric order.
    public var files: [String] { expected.images.keys.sorted { $0.compare($1, options: .numeric) == .orderedAscending } }

    public init(folder: URL) throws {
        let url = folder.appendingPathComponent("expected.json")
        guard let data = try? Data(contentsOf: url) else {
            throw MarkerKitError.missingInput("cannot read '\(url.path)': a chessboard photo folder needs an expected.json")
        }
        guard let expected = try? JSONDecoder().decode(Expected.self, from: data), expected.pattern.count == 2,
              expected.pattern.allSatisfy({ (2...100).contains($0) }) else {
            throw MarkerKitError.badInput("'\(url.path)' is not {pattern: [columns, rows], images: {file: {finder: found}}}")
        }
        self.folder = folder
        self.expected = expected
    }

    /// Whether any of OpenCV's finders (either version) finds the board in `file`.
    public func openCVFinds(_ file: String) -> Bool { expected.images[file]?.values.contains(true) ?? false }

    /// Every `chessboard-*` folder with an expected.json under `parent`, by name.
    public static func all(in parent: URL) throws -> [ChessboardPhotoSet] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: parent.path)) ?? []
        return try names.filter { $0.hasPrefix("chessboard-") }.sorted()
            .map { parent.appendingPathComponent($0) }
            .filter { FileManager.default.fileExists(atPath: $0.appendingPathComponent("expected.json").path) }
            .map { try ChessboardPhotoSet(folder: $0) }
    }
}

/// Real chessboard photos in the bench: per photo, what `calibrate` and `detect --board` do (ChessboardFinder:
/// OpenCV's finders in turn, each corner fitted) against OpenCV's own pipeline as its samples run it
/// (findChessboardCorners with adaptive threshold and normalise, then cornerSubPix), one thread each, in the
/// same run; boards found beside every time.
public struct ChessboardPhotoBenchmark {
    public struct Case: Codable, Sendable {
        public let name: String
        public let width: Int
        public let height: Int
        /// Median milliseconds per photo, by contender (markerkit, opencv); MarkerKit's split into finding
        /// and fitting (markerkit-find, markerkit-fit).
        public let milliseconds: [String: Double]
        /// 1 when the contender found the board (markerkit, opencv; opencv-any: any of OpenCV's finders in
        /// 4.6 or the newest, from expected.json).
        public let boards: [String: Int]
        /// The search that found MarkerKit's board (`ChessboardFinder.Search`: x-corner-grid, global-threshold, half-size,
        /// full-size, sector-based), if any.
        public let search: String?
        /// The peer's OpenCV version, when one ran (its time and board as `peer` above).
        public var peer: String? = nil
    }

    public let sets: [ChessboardPhotoSet]
    public let repeats: Int
    /// The newest OpenCV, as a Python has it, running the same pipeline as the linked one on the same photos.
    public let peer: PythonOpenCVPeer?

    public init(sets: [ChessboardPhotoSet], repeats: Int, peer: PythonOpenCVPeer? = nil) {
        self.sets = sets
        self.repeats = repeats
        self.peer = peer
    }

    public func run(progress: (String) -> Void = { _ in }) throws -> [Case] {
        let setting = WorkerPool.threads
        WorkerPool.setThreads(1)
        defer { WorkerPool.setThreads(setting) }
        var cases: [Case] = []
        for set in sets {
            let ours = ChessboardFinder(innerColumns: set.columns, innerRows: set.rows)
            let theirs = ChessboardDetector(innerColumns: set.columns, innerRows: set.rows, method: .classic)
            if let peer { progress("\(set.name): OpenCV \(peer.version) from \(peer.python.path)") }
            let peerTimes = try peer?.chessboard(set, repeats: repeats)
            for file in set.files {
                progress("\(set.name)/\(file)")
                let image = try GrayImage(contentsOf: set.folder.appendingPathComponent(file))
                var split: [(Double, Double)] = []
                let (oursMs, oursFound) = try CharucoPhotoBenchmark.median(repeats) {
                    try ours.find(in: image, spent: { split.append(($0, $1)) }) != nil ? 1 : 0
                }
                let (theirsMs, theirsFound) = try CharucoPhotoBenchmark.median(repeats) { try theirs.detect(in: image) != nil ? 1 : 0 }
                let finds = split.map(\.0).sorted(), fits = split.map(\.1).sorted()
                let search = oursFound == 1 ? try ours.find(in: image)?.search.rawValue : nil
                var ms = ["markerkit": oursMs, "opencv": theirsMs, "markerkit-find": 1000 * finds[finds.count / 2],
                          "markerkit-fit": 1000 * fits[fits.count / 2]]
                var boards = ["markerkit": oursFound, "opencv": theirsFound, "opencv-any": set.openCVFinds(file) ? 1 : 0]
                if let timing = peerTimes?[file] {
                    ms["peer"] = timing.milliseconds
                    boards["peer"] = timing.corners
                }
                cases.append(Case(name: "\(set.name)/\(file)", width: image.width, height: image.height, milliseconds: ms, boards: boards,
                                  search: search, peer: peer?.version))
            }
        }
        return cases
    }

    /// Per set: boards found and total time, MarkerKit against OpenCV, and the photos where they differ.
    public static func table(_ cases: [Case]) -> String {
        guard !cases.isEmpty else { return "" }
        let peer = cases.first?.peer
        var lines = ["", "Chessboards on real photos, one thread each: boards found and ms for all photos of a set (MarkerKit: find + fit; OpenCV: findChessboardCorners + cornerSubPix; any OpenCV: boards any of OpenCV's finders, 4.6 or newest, finds)"
                         + (peer == nil ? "; the newest OpenCV not timed (no peer Python)" : ""),
                     "set                                   photos  size         markerkit (find + fit)        opencv 4.6   ratio  any OpenCV"
                         + (peer.map { "   opencv \($0) (pip)   ratio" } ?? "")]
        var order: [String] = []
        var sets: [String: [Case]] = [:]
        for c in cases {
            let set = String(c.name.split(separator: "/").first ?? "")
            if sets[set] == nil { order.append(set) }
            sets[set, default: []].append(c)
        }
        var notes: [String] = []
        for set in order {
            let cs = sets[set]!
            func total(_ k: String) -> Double { cs.reduce(0) { $0 + ($1.milliseconds[k] ?? 0) } }
            func count(_ k: String) -> Int { cs.reduce(0) { $0 + ($1.boards[k] ?? 0) } }
            let mk = total("markerkit"), cv = total("opencv")
            lines.append(set.padding(toLength: 38, withPad: " ", startingAt: 0) + String(format: "%5d  ", cs.count)
                + "\(cs[0].width)x\(cs[0].height)".padding(toLength: 11, withPad: " ", startingAt: 0)
                + String(format: " %3d %8.1f ms (%6.1f + %5.1f)  %3d %8.1f ms  %5.2fx  %3d", count("markerkit"), mk, total("markerkit-find"),
                         total("markerkit-fit"), count("opencv"), cv, cv / mk, count("opencv-any"))
                + (peer == nil ? "" : String(format: "  %5d %8.1f ms  %5.2fx", count("peer"), total("peer"), total("peer") / mk)))
            for c in cs where c.boards["markerkit"] != c.boards["opencv-any"] || c.boards["markerkit"] != c.boards["opencv"]
                || (c.boards["peer"].map { $0 == 1 && c.boards["markerkit"] != 1 } ?? false) {
                notes.append("  \(c.name): markerkit \(c.boards["markerkit"] == 1 ? "found" : "none")\(c.search.map { " (\($0))" } ?? ""), OpenCV 4.6 classic \(c.boards["opencv"] == 1 ? "found" : "none"), any OpenCV \(c.boards["opencv-any"] == 1 ? "found" : "none")"
                    + (c.boards["peer"].map { ", OpenCV \(peer ?? "") classic \($0 == 1 ? "found" : "none")" } ?? ""))
            }
        }
        if !notes.isEmpty { lines += ["photos where they differ:"] + notes }
        return lines.joined(separator: "\n")
    }
}

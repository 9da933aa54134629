import Foundation

/// OpenCV as a Python interpreter has it (`pip install opencv-contrib-python-headless` gives the newest
/// release, which is what most users of OpenCV run), timed on the same photos in the same run as MarkerKit
/// and the OpenCV it links (Debian's 4.6). The interpreter runs `script` with a request as JSON on stdin
/// and answers with JSON on stdout; it decodes each photo itself (`cv2.imread`, grayscale) and times only
/// the detection, one thread (`cv2.setNumThreads(1)`) unless asked for more, the median of the repeats.
public struct PythonOpenCVPeer: Sendable {
    public let python: URL
    /// `cv2.__version__`.
    public let version: String

    /// What the peer found and how long it took on one photo.
    public struct Timing: Decodable, Sendable {
        public let file: String
        public let milliseconds: Double
        public let corners: Int
    }

    /// Checks that `python` runs and imports cv2 with its ArUco module; throws a one-line error when not.
    public init(python: URL) throws {
        guard let version = try Self.run(python, ["task": "version"])["version"] as? String else {
            throw MarkerKitError.badInput("\(python.path) gave no OpenCV version")
        }
        self.python = python
        self.version = version
    }

    /// The interpreter to use: `explicit` when given, else $MARKERKIT_PEER_PYTHON, else the one `make peers`
    /// installs in the repository (.build/peers/opencv/bin/python) when it exists; nil when none.
    public static func interpreter(explicit: String?, environment: [String: String] = ProcessInfo.processInfo.environment) -> URL? {
        if let explicit { return URL(fileURLWithPath: explicit) }
        if let path = environment["MARKERKIT_PEER_PYTHON"], !path.isEmpty { return URL(fileURLWithPath: path) }
        let local = ".build/peers/opencv/bin/python"
        return FileManager.default.isExecutableFile(atPath: local) ? URL(fileURLWithPath: local) : nil
    }

    /// What OpenCV's marker detector found on one frame and every run's time.
    public struct MarkerTiming: Decodable, Sendable {
        public let file: String
        public let times: [Double]
        /// Each marker found: ID and the mean of its corners (x, y; pixel centres at integers).
        public let markers: [[Double]]

        public var detections: [(id: Int, center: Point2)] { markers.map { (Int($0[0]), Point2(x: $0[1], y: $0[2])) } }
    }

    /// OpenCV's marker detector with its default parameters on each frame (`ArucoDetector.detectMarkers`,
    /// or `aruco.detectMarkers` before 4.7), `repeats` runs each on `threads` threads, in the order given.
    public func markers(_ frames: [URL], dictionary: MarkerDictionary, repeats: Int, threads: Int) throws -> [MarkerTiming] {
        let request: [String: Any] = [
            "task": "markers", "repeats": max(1, repeats), "threads": max(1, threads), "dictionary": dictionary.name,
            "photos": frames.map { ["file": $0.lastPathComponent, "path": $0.path] },
        ]
        let answer = try Self.run(python, request)
        guard let list = answer["photos"], let data = try? JSONSerialization.data(withJSONObject: list),
              let timings = try? JSONDecoder().decode([MarkerTiming].self, from: data), timings.count == frames.count else {
            throw MarkerKitError.badInput("\(python.path) answered without per-frame markers")
        }
        return timings
    }

    /// OpenCV's ChArUco pipeline on each photo of a set: `CharucoDetector.detectBoard` (OpenCV 4.7 and
    /// later), or `detectMarkers` + `interpolateCornersCharuco` before, by file name.
    public func charuco(_ set: CharucoPhotoSets.PhotoSet, in folder: URL, repeats: Int) throws -> [String: Timing] {
        let request: [String: Any] = [
            "task": "charuco", "repeats": max(1, repeats),
            "board": ["squares": set.squares, "square": set.square_mm, "marker": set.marker_mm, "dictionary": set.dictionary, "legacy": set.legacy],
            "photos": set.files.map { ["file": $0, "path": folder.appendingPathComponent($0).path] },
        ]
        return try timings(Self.run(python, request))
    }

    /// OpenCV's chessboard pipeline as the bench runs the linked one: `findChessboardCorners` (adaptive
    /// threshold, normalise), then `cornerSubPix` with a half window of a fifth of the shortest corner
    /// spacing (2-11 px), 30 iterations or 0.001 px; `corners` is 1 when it found the board. By file name.
    public func chessboard(_ set: ChessboardPhotoSet, repeats: Int) throws -> [String: Timing] {
        let request: [String: Any] = [
            "task": "chessboard", "repeats": max(1, repeats), "pattern": [set.columns, set.rows],
            "photos": set.files.map { ["file": $0, "path": set.folder.appendingPathComponent($0).path] },
        ]
        return try timings(Self.run(python, request))
    }

    private func timings(_ answer: [String: Any]) throws -> [String: Timing] {
        guard let list = answer["photos"], let data = try? JSONSerialization.data(withJSONObject: list),
              let timings = try? JSONDecoder().decode([Timing].self, from: data) else {
            throw MarkerKitError.badInput("\(python.path) answered without per-photo timings")
        }
        return Dictionary(timings.map { ($0.file, $0) }, uniquingKeysWith: { a, _ in a })
    }

    private static func run(_ python: URL, _ request: [String: Any]) throws -> [String: Any] {
        let process = Process()
        process.executableURL = python
        process.arguments = ["-c", script]
        // Its messages go to a file, read at the end: a pipe left unread while its answer is read could fill
        // and stop it.
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("markerkit-peer-\(UUID().uuidString).log")
        guard FileManager.default.createFile(atPath: log.path, contents: nil), let errors = try? FileHandle(forWritingTo: log) else {
            throw MarkerKitError.missingInput("cannot write the peer's log in \(log.deletingLastPathComponent().path)")
        }
        defer {
            try? errors.close()
            try? FileManager.default.removeItem(at: log)
        }
        let input = Pipe(), output = Pipe()
        (process.standardInput, process.standardOutput, process.standardError) = (input, output, errors)
        do { try process.run() } catch {
            throw MarkerKitError.missingInput("cannot run the peer's Python '\(python.path)': \(error.localizedDescription)")
        }
        // A program that is not the peer may have ended without reading: its pipe then refuses the request
        // (EPIPE, and the throwing write, not `write(_:)`, which traps on it) instead of ending this process;
        // its exit status says the rest.
        signal(SIGPIPE, SIG_IGN)
        try? input.fileHandleForWriting.write(contentsOf: try JSONSerialization.data(withJSONObject: request))
        try? input.fileHandleForWriting.close()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let messages = (try? Data(contentsOf: log)) ?? Data()
        guard process.terminationStatus == 0, let answer = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            let last = String(decoding: messages, as: UTF8.self).split(separator: "\n").last.map(String.init) ?? "exit \(process.terminationStatus)"
            throw MarkerKitError.badInput("the peer's Python '\(python.path)' failed: \(last)")
        }
        return answer
    }

    /// The peer's side: reads the request, answers one JSON object; errors end it with one line on stderr.
    static let script = #"""
import json, sys, time
try:
    import cv2
    import numpy
    cv2.aruco
except Exception as error:
    sys.exit("no OpenCV with its aruco module here (%s): pip install opencv-contrib-python-headless" % error)
request = json.load(sys.stdin)
if request["task"] == "version":
    print(json.dumps({"version": cv2.__version__}))
    sys.exit(0)
cv2.setNumThreads(request.get("threads", 1))


def timed(detect, entry=lambda times, count: {"milliseconds": sorted(times)[len(times) // 2], "corners": count}):
    """Each photo's detections timed over the repeats; `entry` makes its answer from the times and the
    last run's result."""
    answers = []
    for photo in request["photos"]:
        gray = cv2.imread(photo["path"], cv2.IMREAD_GRAYSCALE)
        if gray is None:
            sys.exit("cannot read %s" % photo["path"])
        times = []
        for _ in range(request["repeats"]):
            start = time.perf_counter()
            result = detect(gray)
            times.append((time.perf_counter() - start) * 1000)
        answers.append(dict({"file": photo["file"]}, **entry(times, result)))
    print(json.dumps({"photos": answers}))


if request["task"] == "chessboard":
    pattern = tuple(request["pattern"])
    flags = cv2.CALIB_CB_ADAPTIVE_THRESH | cv2.CALIB_CB_NORMALIZE_IMAGE
    criteria = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_COUNT, 30, 0.001)
    def board(gray):
        found, corners = cv2.findChessboardCorners(gray, pattern, flags=flags)
        if not found:
            return 0
        grid = corners.reshape(pattern[1], pattern[0], 2)
        shortest = min(float(numpy.linalg.norm(grid[:, 1:] - grid[:, :-1], axis=2).min()) if pattern[0] > 1 else 1e9,
                       float(numpy.linalg.norm(grid[1:] - grid[:-1], axis=2).min()) if pattern[1] > 1 else 1e9)
        half = max(2, min(11, int(shortest / 5 + 0.5)))  # std::lround, as the linked pipeline
        cv2.cornerSubPix(gray, corners, (half, half), (-1, -1), criteria)
        return 1
    timed(board)
    sys.exit(0)
if request["task"] == "markers":
    dictionary = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, request["dictionary"]))
    if hasattr(cv2.aruco, "ArucoDetector"):
        detector = cv2.aruco.ArucoDetector(dictionary, cv2.aruco.DetectorParameters())
        detect = detector.detectMarkers
    else:
        parameters = cv2.aruco.DetectorParameters_create()
        detect = lambda gray: cv2.aruco.detectMarkers(gray, dictionary, parameters=parameters)
    def markers(times, found):
        corners, ids = found[0], found[1]
        centres = [] if ids is None else [[int(i)] + [float(v) for v in c.reshape(4, 2).mean(axis=0)] for c, i in zip(corners, ids.flatten())]
        return {"times": times, "markers": centres}
    timed(detect, markers)
    sys.exit(0)
spec = request["board"]
dictionary = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, spec["dictionary"]))
sx, sy = spec["squares"]
if hasattr(cv2.aruco, "CharucoDetector"):
    board = cv2.aruco.CharucoBoard((sx, sy), spec["square"], spec["marker"], dictionary)
    board.setLegacyPattern(spec["legacy"])
    detector = cv2.aruco.CharucoDetector(board)
    def detect(gray):
        corners = detector.detectBoard(gray)[0]
        return 0 if corners is None else len(corners)
else:
    if spec["legacy"]:
        sys.exit("OpenCV %s draws ChArUco boards only in one layout: legacy boards need 4.7 or later" % cv2.__version__)
    board = cv2.aruco.CharucoBoard_create(sx, sy, spec["square"], spec["marker"], dictionary)
    parameters = cv2.aruco.DetectorParameters_create()
    def detect(gray):
        corners, ids, _ = cv2.aruco.detectMarkers(gray, dictionary, parameters=parameters)
        if ids is None or len(ids) == 0:
            return 0
        found = cv2.aruco.interpolateCornersCharuco(corners, ids, gray, board)[1]
        return 0 if found is None else len(found)
timed(detect)
"""#
}

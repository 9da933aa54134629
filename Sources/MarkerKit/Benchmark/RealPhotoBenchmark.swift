import Foundation

/// Real photos in the bench: each photo of a folder with an `expected.json` (file -> dictionary and the
/// IDs in it, as `../shared/data/real-photos` has), at full resolution, timed for MarkerKit and OpenCV
/// (default and ArUco 3 mode) in the same run, with recall against the expected IDs beside each time.
public struct RealPhotoBenchmark {
    public struct Expected: Decodable, Sendable {
        public let dictionary: String
        public let ids: [Int]
    }

    public let folder: URL
    public let repeats: Int

    public init(folder: URL, repeats: Int) {
        self.folder = folder
        self.repeats = repeats
    }

    /// The photos and what they hold; throws when the folder has no readable `expected.json`.
    public func expected() throws -> [(file: String, expected: Expected)] {
        let url = folder.appendingPathComponent("expected.json")
        let data: Data
        do { data = try Data(contentsOf: url) } catch {
            throw MarkerKitError.missingInput("cannot read '\(url.path)': the photo folder needs an expected.json")
        }
        guard let map = try? JSONDecoder().decode([String: Expected].self, from: data) else {
            throw MarkerKitError.badInput("'\(url.path)' is not a map of file -> {dictionary, ids}")
        }
        return map.keys.sorted().map { ($0, map[$0]!) }
    }

    /// One case per photo, named after it.
    public func run(progress: (String) -> Void = { _ in }) throws -> [DetectorBenchmark.Case] {
        let workspace = DetectorWorkspace()
        return try expected().map { file, expected in
            progress(file)
            let dictionary = try MarkerDictionary.parse(expected.dictionary)
            let image = try Grayscale.image(from: Frame(contentsOf: folder.appendingPathComponent(file)))
            let contenders: [(String, (GrayImage) throws -> [MarkerDetection])] = [
                ("markerkit", { var none: StageTimings? = nil; return try MarkerDetector(dictionary: dictionary).detect(in: $0, workspace: workspace, timings: &none) }),
                ("opencv", { try OpenCVArucoDetector(dictionary: dictionary).detect(in: $0) }),
                ("aruco3", { try OpenCVArucoDetector(aruco3: true, dictionary: dictionary).detect(in: $0) }),
            ]
            var milliseconds: [String: Double] = [:], recall: [String: Double] = [:]
            for (name, detect) in contenders {
                var found: [MarkerDetection] = []
                var times: [Double] = []
                for _ in 0..<repeats {
                    let start = ContinuousClock.now
                    found = try detect(image)
                    let d = ContinuousClock.now - start
                    times.append((Double(d.components.seconds) + Double(d.components.attoseconds) * 1e-18) * 1000)
                }
                milliseconds[name] = times.sorted()[times.count / 2]
                var missing = expected.ids
                for marker in found { if let i = missing.firstIndex(of: marker.id) { missing.remove(at: i) } }
                recall[name] = Double(expected.ids.count - missing.count) / Double(expected.ids.count)
            }
            return DetectorBenchmark.Case(name: "photo " + file, width: image.width, height: image.height, markers: expected.ids.count,
                                          milliseconds: milliseconds, recall: recall, recall20: [:])
        }
    }
}

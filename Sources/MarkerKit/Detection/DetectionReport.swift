import Foundation

/// Detection results as JSON: `{"frames": [{"source", "index", "width", "height", "markers": [{"id",
/// "corners", "pose": {"rvec", "tvec", "unit"}}], "orientation": {"exif", "applied"}}]}`. Corners in
/// pixels, OpenCV's convention (integer coordinates at pixel centres), in the marker's order TL, TR,
/// BR, BL, in the picture as displayed: an image with an orientation tag (phone photos) is turned as
/// the tag says first, and `orientation` says so (absent for files without a tag, videos, cameras).
public struct DetectionReport: Codable, Sendable {
    /// A marker's pose: the one chosen, with its RMS reprojection error in pixels, and IPPE's other pose
    /// (`alternative`), its error and the ratio of the two errors; `ambiguous` when the ratio is below
    /// `PoseHistory.ambiguousRatio` (the corners alone cannot tell the poses apart), and what `decided`
    /// the choice: the reprojection, or the marker's pose in the frames before (`history`, in videos and
    /// streams). The fields after `unit` are absent in files written before they existed.
    public struct Pose: Codable, Sendable, Equatable {
        public private(set) var rotation: SIMD3<Double>
        public private(set) var translation: SIMD3<Double>
        public let unit: String
        public var error: Double?
        public var alternative: Alternative?
        public var ratio: Double?
        public var ambiguous: Bool?
        public var decided: Decision?
        /// The chosen pose's standard deviations predicted from its corners' noise (`PoseUncertainty`).
        public var sigma: PoseSigma?
        /// With `--smooth`: `rvec` and `tvec` are the pose smoothed over the frames before (`PoseSmoother`);
        /// `error`, `alternative` and `sigma` are still the frame's own pose's.
        public var smoothed: Bool?

        /// The same with `rvec` and `tvec` replaced by the smoothed pose.
        public func smoothed(to pose: MarkerPose) -> Pose {
            var result = self
            result.rotation = pose.rotation
            result.translation = pose.translation
            result.smoothed = true
            return result
        }

        /// The other pose.
        public struct Alternative: Codable, Sendable, Equatable {
            public let rotation: SIMD3<Double>
            public let translation: SIMD3<Double>
            public let error: Double

            enum CodingKeys: String, CodingKey { case rotation = "rvec", translation = "tvec", error }
        }

        public enum Decision: String, Codable, Sendable {
            /// The pose that reprojects better.
            case reprojection
            /// An ambiguous marker's pose nearer its pose in the frames before.
            case history
            /// An ambiguous marker's pose nearer the one the pose of its marker map (`--board`) gives it.
            case board
        }

        public init(rotation: SIMD3<Double>, translation: SIMD3<Double>, unit: String) {
            self.rotation = rotation
            self.translation = translation
            self.unit = unit
        }

        public init(_ poses: MarkerPoses, decided: Decision, unit: String) {
            self.init(rotation: poses.chosen.rotation, translation: poses.chosen.translation, unit: unit)
            error = poses.chosenError
            alternative = Alternative(rotation: poses.other.rotation, translation: poses.other.translation, error: poses.otherError)
            ratio = poses.ratio
            ambiguous = poses.isAmbiguous
            self.decided = decided
        }

        /// The Rodrigues vector as the JSON has it.
        public var rvec: [Double] { [rotation.x, rotation.y, rotation.z] }
        /// The translation, in `unit`.
        public var tvec: [Double] { [translation.x, translation.y, translation.z] }
        /// The chosen pose.
        public var pose: MarkerPose { MarkerPose(rotation: rotation, translation: translation) }

        enum CodingKeys: String, CodingKey {
            case rotation = "rvec", translation = "tvec", unit, error, alternative, ratio, ambiguous, decided, sigma, smoothed
        }
    }

    public struct Marker: Codable, Sendable, Equatable {
        public let id: Int
        /// The corners, TL, TR, BR, BL, kept in the value (`track` makes these for every frame).
        public let quad: Quad
        public let pose: Pose?

        /// The corners as the JSON has them: [[x, y], ...].
        public var corners: [[Double]] { (0..<4).map { [quad[$0].x, quad[$0].y] } }

        public init(_ detection: MarkerDetection, pose: MarkerPose?, unit: String = "m") {
            id = detection.id
            quad = detection.quad
            self.pose = pose.map { Pose(rotation: $0.rotation, translation: $0.translation, unit: unit) }
        }

        /// With both poses, the choice made by `decided`, and the chosen pose's sigma.
        public init(_ detection: MarkerDetection, poses: MarkerPoses?, decided: Pose.Decision = .reprojection, unit: String = "m",
                    sigma: PoseSigma? = nil, smoothed: MarkerPose? = nil) {
            id = detection.id
            quad = detection.quad
            pose = poses.map {
                var pose = Pose($0, decided: decided, unit: unit)
                pose.sigma = sigma
                return smoothed.map { pose.smoothed(to: $0) } ?? pose
            }
        }

        enum CodingKeys: String, CodingKey { case id, corners, pose }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            id = try container.decode(Int.self, forKey: .id)
            let corners = try container.decode([[Double]].self, forKey: .corners)
            guard corners.count == 4, corners.allSatisfy({ $0.count == 2 }) else {
                throw DecodingError.dataCorruptedError(forKey: .corners, in: container, debugDescription: "a marker has four corners of two coordinates")
            }
            quad = Quad(corners: corners.map { Point2(x: $0[0], y: $0[1]) })
            pose = try container.decodeIfPresent(Pose.self, forKey: .pose)
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(id, forKey: .id)
            try container.encode(corners, forKey: .corners)
            try container.encodeIfPresent(pose, forKey: .pose)
        }
    }

    /// A marker map's pose in one frame (`--board map.json`): the pose of the map's frame (translation in
    /// metres), the IDs whose corners gave it and those left out as outliers.
    public struct MapPose: Codable, Sendable, Equatable {
        public let pose: Pose
        public let markers: [Int]
        public let outliers: [Int]
        /// A ChArUco board's pose: how many of its chessboard corners it is from (absent for a marker map).
        public var corners: Int?

        public init(_ result: MarkerMapPose.Result, decided: Pose.Decision, sigma: PoseSigma? = nil, smoothed: MarkerPose? = nil) {
            var pose: Pose
            if result.solutions > 1 {
                pose = Pose(result.poses, decided: decided, unit: "m")
            } else {
                pose = Pose(rotation: result.poses.chosen.rotation, translation: result.poses.chosen.translation, unit: "m")
                pose.error = result.poses.chosenError
            }
            pose.sigma = sigma
            self.pose = smoothed.map { pose.smoothed(to: $0) } ?? pose
            markers = result.markers
            outliers = result.outliers
            corners = result.corners
        }

        func appendJSON(to out: inout [UInt8]) {
            out.append(UInt8(ascii: "{"))
            JSONText.append(key: "markers", first: true, to: &out)
            JSONText.append(markers, to: &out)
            JSONText.append(key: "outliers", to: &out)
            JSONText.append(outliers, to: &out)
            if let corners {
                JSONText.append(key: "corners", to: &out)
                JSONText.append(corners, to: &out)
            }
            JSONText.append(key: "pose", to: &out)
            pose.appendJSON(to: &out)
            out.append(UInt8(ascii: "}"))
        }
    }

    /// A board's corners found in one frame (`detect --board`): OpenCV's corner IDs and sub-pixel
    /// positions, of `total` corners on the board.
    public struct BoardCorners: Codable, Sendable, Equatable {
        public struct Corner: Codable, Sendable, Equatable {
            public let id: Int
            public let x: Double
            public let y: Double
        }
        public let type: String
        public let total: Int
        public let corners: [Corner]

        public init(type: String, total: Int, corners: [CharucoDetection.Corner]) {
            self.type = type
            self.total = total
            self.corners = corners.map { Corner(id: $0.id, x: $0.point.x, y: $0.point.y) }
        }

        /// This object as JSON appended to `out`, keys sorted as the JSON files have them.
        func appendJSON(to out: inout [UInt8]) {
            out.append(UInt8(ascii: "{"))
            JSONText.append(key: "corners", first: true, to: &out)
            out.append(UInt8(ascii: "["))
            for (number, corner) in corners.enumerated() {
                if number > 0 { out.append(UInt8(ascii: ",")) }
                out.append(UInt8(ascii: "{"))
                JSONText.append(key: "id", first: true, to: &out)
                JSONText.append(corner.id, to: &out)
                JSONText.append(key: "x", to: &out)
                JSONText.append(corner.x, to: &out)
                JSONText.append(key: "y", to: &out)
                JSONText.append(corner.y, to: &out)
                out.append(UInt8(ascii: "}"))
            }
            out.append(UInt8(ascii: "]"))
            JSONText.append(key: "total", to: &out)
            JSONText.append(total, to: &out)
            JSONText.append(key: "type", to: &out)
            JSONText.append(type, to: &out)
            out.append(UInt8(ascii: "}"))
        }
    }

    /// A ChArUco diamond found (`detect --diamonds`): its four marker IDs in OpenCV's order (top, left,
    /// right, bottom square), its four inner corners (top-left, top-right, bottom-right, bottom-left in the
    /// diamond's frame) and, with a calibration, its pose (origin at the diamond's centre, x towards the
    /// right marker, y towards the top one, as OpenCV's estimatePoseSingleMarkers on its corners).
    public struct Diamond: Codable, Sendable, Equatable {
        public let ids: [Int]
        public let corners: [[Double]]
        public let pose: Pose?

        public init(_ diamond: DiamondDetection, poses: MarkerPoses?, unit: String = "m") {
            ids = diamond.ids
            corners = diamond.corners.map { [$0.x, $0.y] }
            pose = poses.map { Pose($0, decided: .reprojection, unit: unit) }
        }
    }

    public struct FrameResult: Codable, Sendable {
        public let source: String
        public let index: Int
        public let width: Int
        public let height: Int
        /// The dictionary the IDs belong to (OpenCV's name).
        public let dictionary: String
        public internal(set) var markers: [Marker]
        /// The image file's orientation tag, and whether the picture was turned to it before detection.
        public let orientation: ImageOrientation?
        /// With a board to look for: its corners found.
        public var board: BoardCorners? = nil
        /// With a marker map: its pose.
        public var target: MapPose? = nil
        /// With `--diamonds`: the diamonds found.
        public var diamonds: [Diamond]? = nil

        public init(source: String, index: Int, width: Int, height: Int, dictionary: MarkerDictionary = .arucoOriginal, markers: [Marker],
                    orientation: ImageOrientation? = nil) {
            self.source = source
            self.index = index
            self.width = width
            self.height = height
            self.dictionary = dictionary.name
            self.markers = markers
            self.orientation = orientation
        }

        /// One line of JSON (for `--jsonl`).
        public func jsonLine() throws -> Data {
            var line: [UInt8] = []
            appendJSONLine(to: &line)
            return Data(line)
        }

        /// The same line appended to `out` (keys sorted, as the JSON files have them); with a buffer kept
        /// from frame to frame this allocates nothing.
        public func appendJSONLine(to out: inout [UInt8]) {
            out.append(UInt8(ascii: "{"))
            if let board {
                JSONText.append(key: "board", first: true, to: &out)
                board.appendJSON(to: &out)
            }
            if let diamonds {
                JSONText.append(key: "diamonds", first: board == nil, to: &out)
                out.append(UInt8(ascii: "["))
                for (number, diamond) in diamonds.enumerated() {
                    if number > 0 { out.append(UInt8(ascii: ",")) }
                    out.append(UInt8(ascii: "{"))
                    JSONText.append(key: "corners", first: true, to: &out)
                    JSONText.appendPoints(diamond.corners.count, { (diamond.corners[$0][0], diamond.corners[$0][1]) }, to: &out)
                    JSONText.append(key: "ids", to: &out)
                    out.append(UInt8(ascii: "["))
                    for (k, id) in diamond.ids.enumerated() {
                        if k > 0 { out.append(UInt8(ascii: ",")) }
                        JSONText.append(id, to: &out)
                    }
                    out.append(UInt8(ascii: "]"))
                    if let pose = diamond.pose {
                        JSONText.append(key: "pose", to: &out)
                        pose.appendJSON(to: &out)
                    }
                    out.append(UInt8(ascii: "}"))
                }
                out.append(UInt8(ascii: "]"))
            }
            JSONText.append(key: "dictionary", first: board == nil && diamonds == nil, to: &out)
            JSONText.append(dictionary, to: &out)
            JSONText.append(key: "height", to: &out)
            JSONText.append(height, to: &out)
            JSONText.append(key: "index", to: &out)
            JSONText.append(index, to: &out)
            JSONText.append(key: "markers", to: &out)
            out.append(UInt8(ascii: "["))
            for (number, marker) in markers.enumerated() {
                if number > 0 { out.append(UInt8(ascii: ",")) }
                out.append(UInt8(ascii: "{"))
                JSONText.append(key: "corners", first: true, to: &out)
                JSONText.appendPoints(4, { (marker.quad[$0].x, marker.quad[$0].y) }, to: &out)
                JSONText.append(key: "id", to: &out)
                JSONText.append(marker.id, to: &out)
                if let pose = marker.pose {
                    JSONText.append(key: "pose", to: &out)
                    pose.appendJSON(to: &out)
                }
                out.append(UInt8(ascii: "}"))
            }
            out.append(UInt8(ascii: "]"))
            if let orientation {
                JSONText.append(key: "orientation", to: &out)
                out.append(UInt8(ascii: "{"))
                JSONText.append(key: "applied", first: true, to: &out)
                JSONText.append(literal: orientation.applied ? "true" : "false", to: &out)
                JSONText.append(key: "exif", to: &out)
                JSONText.append(orientation.exif, to: &out)
                out.append(UInt8(ascii: "}"))
            }
            JSONText.append(key: "source", to: &out)
            JSONText.append(source, to: &out)
            if let target {
                JSONText.append(key: "target", to: &out)
                target.appendJSON(to: &out)
            }
            JSONText.append(key: "width", to: &out)
            JSONText.append(width, to: &out)
            out.append(UInt8(ascii: "}"))
            out.append(0x0A)
        }
    }

    public var frames: [FrameResult]

    public init(frames: [FrameResult]) { self.frames = frames }

    public func encoded() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        var data = try encoder.encode(self)
        data.append(0x0A)
        return data
    }
}

extension DetectionReport.Pose {
    /// The pose as JSON, keys sorted as JSONEncoder sorts them; nothing allocated with a kept buffer.
    func appendJSON(to out: inout [UInt8]) {
        out.append(UInt8(ascii: "{"))
        var first = true
        if let alternative {
            JSONText.append(key: "alternative", first: true, to: &out)
            out.append(UInt8(ascii: "{"))
            JSONText.append(key: "error", first: true, to: &out)
            JSONText.append(alternative.error, to: &out)
            JSONText.append(key: "rvec", to: &out)
            JSONText.append(alternative.rotation, to: &out)
            JSONText.append(key: "tvec", to: &out)
            JSONText.append(alternative.translation, to: &out)
            out.append(UInt8(ascii: "}"))
            first = false
        }
        if let ambiguous {
            JSONText.append(key: "ambiguous", first: first, to: &out)
            JSONText.append(literal: ambiguous ? "true" : "false", to: &out)
            first = false
        }
        if let decided {
            JSONText.append(key: "decided", first: first, to: &out)
            switch decided {
            case .reprojection: JSONText.append(literal: "\"reprojection\"", to: &out)
            case .history: JSONText.append(literal: "\"history\"", to: &out)
            case .board: JSONText.append(literal: "\"board\"", to: &out)
            }
            first = false
        }
        if let error {
            JSONText.append(key: "error", first: first, to: &out)
            JSONText.append(error, to: &out)
            first = false
        }
        if let ratio {
            JSONText.append(key: "ratio", first: first, to: &out)
            JSONText.append(ratio, to: &out)
            first = false
        }
        JSONText.append(key: "rvec", first: first, to: &out)
        JSONText.append(rotation, to: &out)
        if let sigma {
            JSONText.append(key: "sigma", to: &out)
            out.append(UInt8(ascii: "{"))
            JSONText.append(key: "rotation_deg", first: true, to: &out)
            JSONText.append(sigma.rotation, to: &out)
            JSONText.append(key: "translation", to: &out)
            JSONText.append(sigma.translation, to: &out)
            out.append(UInt8(ascii: "}"))
        }
        if let smoothed {
            JSONText.append(key: "smoothed", to: &out)
            JSONText.append(literal: smoothed ? "true" : "false", to: &out)
        }
        JSONText.append(key: "tvec", to: &out)
        JSONText.append(translation, to: &out)
        JSONText.append(key: "unit", to: &out)
        JSONText.append(unit, to: &out)
        out.append(UInt8(ascii: "}"))
    }
}

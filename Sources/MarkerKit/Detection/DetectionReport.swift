import Foundation

/// Detection results as JSON: `{"frames": [{"source", "index", "width", "height", "markers": [{"id",
/// "corners", "pose": {"rvec", "tvec", "unit"}}], "orientation": {"exif", "applied"}}]}`. Corners in
/// pixels, OpenCV's convention (integer coordinates at pixel centres), in the marker's order TL, TR,
/// BR, BL, in the picture as displayed: an image with an orientation tag (phone photos) is turned as
/// the tag says first, and `orientation` says so (absent for files without a tag, videos, cameras).
public struct DetectionReport: Codable, Sendable {
    public struct Pose: Codable, Sendable, Equatable {
        public let rotation: SIMD3<Double>
        public let translation: SIMD3<Double>
        public let unit: String

        /// The Rodrigues vector as the JSON has it.
        public var rvec: [Double] { [rotation.x, rotation.y, rotation.z] }
        /// The translation, in `unit`.
        public var tvec: [Double] { [translation.x, translation.y, translation.z] }

        enum CodingKeys: String, CodingKey {
            case rotation = "rvec", translation = "tvec", unit
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

    public struct FrameResult: Codable, Sendable {
        public let source: String
        public let index: Int
        public let width: Int
        public let height: Int
        /// The dictionary the IDs belong to (OpenCV's name).
        public let dictionary: String
        public let markers: [Marker]
        /// The image file's orientation tag, and whether the picture was turned to it before detection.
        public let orientation: ImageOrientation?
        /// With a board to look for: its corners found.
        public var board: BoardCorners? = nil

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
            JSONText.append(key: "dictionary", first: board == nil, to: &out)
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
                out.append(UInt8(ascii: "["))
                for corner in 0..<4 {
                    if corner > 0 { out.append(UInt8(ascii: ",")) }
                    out.append(UInt8(ascii: "["))
                    JSONText.append(marker.quad[corner].x, to: &out)
                    out.append(UInt8(ascii: ","))
                    JSONText.append(marker.quad[corner].y, to: &out)
                    out.append(UInt8(ascii: "]"))
                }
                out.append(UInt8(ascii: "]"))
                JSONText.append(key: "id", to: &out)
                JSONText.append(marker.id, to: &out)
                if let pose = marker.pose {
                    JSONText.append(key: "pose", to: &out)
                    out.append(UInt8(ascii: "{"))
                    JSONText.append(key: "rvec", first: true, to: &out)
                    JSONText.append(pose.rotation, to: &out)
                    JSONText.append(key: "tvec", to: &out)
                    JSONText.append(pose.translation, to: &out)
                    JSONText.append(key: "unit", to: &out)
                    JSONText.append(pose.unit, to: &out)
                    out.append(UInt8(ascii: "}"))
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

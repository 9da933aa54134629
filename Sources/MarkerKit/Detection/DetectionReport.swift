import Foundation

/// Detection results as JSON: `{"frames": [{"source", "index", "width", "height", "markers": [{"id",
/// "corners", "pose": {"rvec", "tvec", "unit"}}]}]}`. Corners in pixels, OpenCV's convention (integer
/// coordinates at pixel centres), in the marker's order TL, TR, BR, BL.
public struct DetectionReport: Codable, Sendable {
    public struct Pose: Codable, Sendable, Equatable {
        public let rvec: [Double]
        public let tvec: [Double]
        public let unit: String
    }

    public struct Marker: Codable, Sendable, Equatable {
        public let id: Int
        public let corners: [[Double]]
        public let pose: Pose?

        public init(_ detection: MarkerDetection, pose: MarkerPose?, unit: String = "m") {
            id = detection.id
            corners = detection.corners.map { [$0.x, $0.y] }
            self.pose = pose.map { Pose(rvec: $0.rvec, tvec: $0.tvec, unit: unit) }
        }
    }

    public struct FrameResult: Codable, Sendable {
        public let source: String
        public let index: Int
        public let width: Int
        public let height: Int
        public let markers: [Marker]

        public init(source: String, index: Int, width: Int, height: Int, markers: [Marker]) {
            self.source = source
            self.index = index
            self.width = width
            self.height = height
            self.markers = markers
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
            JSONText.append(key: "height", first: true, to: &out)
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
                for (corner, point) in marker.corners.enumerated() {
                    if corner > 0 { out.append(UInt8(ascii: ",")) }
                    JSONText.append(point, to: &out)
                }
                out.append(UInt8(ascii: "]"))
                JSONText.append(key: "id", to: &out)
                JSONText.append(marker.id, to: &out)
                if let pose = marker.pose {
                    JSONText.append(key: "pose", to: &out)
                    out.append(UInt8(ascii: "{"))
                    JSONText.append(key: "rvec", first: true, to: &out)
                    JSONText.append(pose.rvec, to: &out)
                    JSONText.append(key: "tvec", to: &out)
                    JSONText.append(pose.tvec, to: &out)
                    JSONText.append(key: "unit", to: &out)
                    JSONText.append(pose.unit, to: &out)
                    out.append(UInt8(ascii: "}"))
                }
                out.append(UInt8(ascii: "}"))
            }
            out.append(UInt8(ascii: "]"))
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

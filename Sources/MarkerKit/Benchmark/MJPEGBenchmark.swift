import CVBridge
import Foundation

/// The bench's MJPEG rows: a camera's JPEG frames decoded and searched for markers. MarkerKit as `track`
/// runs it (`JPEGDecoder` into a kept gray frame, the detector with its workspace) against OpenCV
/// (`imdecode` to gray, `detectMarkers` on its picture), on the same frames in the same run, with the
/// decode alone timed beside.
extension DetectorBenchmark {
    public struct MJPEGCase: Codable, Sendable {
        public let name: String
        public let width: Int
        public let height: Int
        public let markers: Int
        /// The JPEG frames' mean size.
        public let jpegBytes: Int
        /// Median milliseconds per frame: "markerkit" and "opencv" decode and detect, "markerkit-decode"
        /// and "opencv-decode" decode alone.
        public let milliseconds: [String: Double]
        public let recall: [String: Double]
    }

    /// The frame sizes of the MJPEG rows: a webcam's VGA and full HD.
    static let mjpegSizes = [(640, 480), (1920, 1080)]

    /// The rendered frames of 10 markers (the marker cases' scenes), each made a JPEG as a camera would
    /// send it: OpenCV's `imencode` of the picture as BGR (YCbCr 4:2:0, quality 95).
    func mjpegCase(width: Int, height: Int, frames: Int, renderer: SceneRenderer) throws -> MJPEGCase {
        var jpegs: [Data] = [], truths: [[SceneTruth.Marker]] = []
        for k in 0..<frames {
            let scene = try BenchmarkScenes.markers(count: 10, width: width, height: height, seed: UInt64(width * 31 + 500 + k), dictionary: dictionary)
            let gray = try renderer.render(scene)
            let bgr = Frame(width: width, height: height, stride: width * 3, format: .bgr8, bytes: gray.pixels.flatMap { [$0, $0, $0] })
            jpegs.append(try bgr.encoded(as: "jpg"))
            truths.append(try SceneTruth.markers(of: scene))
        }
        let decoder = try JPEGDecoder()
        let detector = MarkerDetector(dictionary: dictionary), opencv = OpenCVArucoDetector(dictionary: dictionary)
        var frame = Frame.empty, markers: [MarkerDetection] = [], none: StageTimings? = nil
        func decode(_ jpeg: Data) throws {
            try jpeg.withUnsafeBytes { try decoder.decode($0, width: width, height: height, color: false, into: &frame) }
        }
        func imdecode(_ jpeg: Data) throws -> cvb_image {
            var view = cvb_image()
            let status = jpeg.withUnsafeBytes { cvb_image_decode($0.bindMemory(to: UInt8.self).baseAddress, Int32($0.count), 1, &view) }
            try Bridge.check(status) { .badInput("imdecode: \($0)") }
            return view
        }
        let contenders: [(String, (Data) throws -> [MarkerDetection])] = [
            ("markerkit", { jpeg in
                try decode(jpeg)
                try detector.detect(in: frame, workspace: workspace, timings: &none, into: &markers)
                return markers
            }),
            ("opencv", { jpeg in
                let view = try imdecode(jpeg)
                return try opencv.detect(gray: view.data!, width: Int(view.width), height: Int(view.height), stride: Int(view.stride))
            }),
            ("markerkit-decode", { try decode($0); return [] }),
            ("opencv-decode", { _ = try imdecode($0); return [] }),
        ]
        defer { cvb_decoded_release() }
        var times: [String: [Double]] = [:], found: [String: Int] = [:], present = 0
        for (index, jpeg) in jpegs.enumerated() {
            // Contenders take turns run by run, so that the machine's other work falls on each alike.
            for run in 0..<repeats {
                for (name, decodeAndDetect) in contenders {
                    var detections: [MarkerDetection] = []
                    times[name, default: []].append(try time { detections = try decodeAndDetect(jpeg) })
                    if run == 0, !name.hasSuffix("-decode") {
                        found[name, default: 0] += truths[index].filter { Self.finds(detections, $0) }.count
                    }
                }
            }
            present += truths[index].count
        }
        return MJPEGCase(name: "\(width)x\(height), 10 markers (\(counted(frames, "frame")))", width: width, height: height,
                         markers: 10, jpegBytes: jpegs.map(\.count).reduce(0, +) / jpegs.count,
                         milliseconds: times.mapValues { median($0) },
                         recall: found.mapValues { Double($0) / Double(max(present, 1)) })
    }

    /// The MJPEG rows of the bench's table.
    static func mjpegTable(_ cases: [MJPEGCase]) -> [String] {
        guard !cases.isEmpty else { return [] }
        func cell(_ c: MJPEGCase, _ name: String, over ours: String) -> String {
            guard let v = c.milliseconds[name], let base = c.milliseconds[ours] else { return "       -           " }
            return String(format: "%8.2f (%5.2fx)", v, v / base)
        }
        var lines = ["", "MJPEG camera frames (JPEG by imencode: YCbCr 4:2:0, quality 95): median ms per frame (ratio to markerkit) and recall", "",
                     "case                                 jpeg KB   markerkit    opencv imdecode+detect   decode: markerkit    opencv imdecode     recall mk / cv"]
        for c in cases {
            lines.append(c.name.padding(toLength: 36, withPad: " ", startingAt: 0) + String(format: "%7.1f", Double(c.jpegBytes) / 1000)
                + String(format: "%10.2f", c.milliseconds["markerkit"] ?? .nan) + "    " + cell(c, "opencv", over: "markerkit")
                + String(format: "%15.2f", c.milliseconds["markerkit-decode"] ?? .nan) + "    " + cell(c, "opencv-decode", over: "markerkit-decode")
                + "   " + ["markerkit", "opencv"].map { c.recall[$0].map { String(format: "%5.1f%%", 100 * $0) } ?? "  -  " }.joined(separator: " / "))
        }
        return lines
    }
}

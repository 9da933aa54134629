import CVBridge

/// Draws detections onto a BGR frame: outlines, corner 0, IDs and, with a pose, the marker's axes (x red,
/// y green, z blue) and a wire cube standing on it, and with the pose's sigma, that (degrees and
/// millimetres) under the ID.
public struct MarkerAnnotator: Sendable {
    public var poseEstimator: MarkerPoseEstimator?

    public init(poseEstimator: MarkerPoseEstimator? = nil) { self.poseEstimator = poseEstimator }

    public func annotate(_ frame: inout Frame, markers: [MarkerDetection], poses: [Int: MarkerPose] = [:], sigmas: [Int: PoseSigma] = [:]) throws {
        precondition(frame.format == .bgr8, "annotations are drawn on BGR frames")
        let thickness = max(1, min(frame.width, frame.height) / 400)
        for (index, marker) in markers.enumerated() {
            try polyline(&frame, marker.corners, closed: true, color: (0, 220, 0), thickness: thickness)
            try circle(&frame, marker.corners[0], radius: Double(2 + thickness), color: (0, 0, 255), thickness: -1)
            if let estimator = poseEstimator, let pose = poses[index] {
                let h = estimator.side / 2, s = estimator.side
                let axes = try estimator.project([(0, 0, 0), (h, 0, 0), (0, h, 0), (0, 0, h)], pose: pose)
                let base = [(-h, h, 0.0), (h, h, 0.0), (h, -h, 0.0), (-h, -h, 0.0)]
                let cube = try estimator.project(base + base.map { ($0.0, $0.1, s) }, pose: pose)
                for edge in [(0, 1), (1, 2), (2, 3), (3, 0), (4, 5), (5, 6), (6, 7), (7, 4), (0, 4), (1, 5), (2, 6), (3, 7)] {
                    try polyline(&frame, [cube[edge.0], cube[edge.1]], closed: false, color: (255, 200, 0), thickness: thickness)
                }
                try polyline(&frame, [axes[0], axes[1]], closed: false, color: (0, 0, 255), thickness: 2 * thickness)
                try polyline(&frame, [axes[0], axes[2]], closed: false, color: (0, 255, 0), thickness: 2 * thickness)
                try polyline(&frame, [axes[0], axes[3]], closed: false, color: (255, 0, 0), thickness: 2 * thickness)
            }
            let scale = max(0.4, Double(thickness) * 0.5)
            try text(&frame, "\(marker.id)", at: marker.center, scale: scale, color: (255, 0, 255), thickness: thickness)
            if let sigma = sigmas[index] {
                try outlinedText(&frame, Self.label(sigma), at: Point2(x: marker.center.x, y: marker.center.y + 22 * scale), scale: 0.8 * scale,
                                 color: (255, 0, 255), thickness: thickness)
            }
        }
    }

    /// A pose's sigma as the annotations print it (ASCII: OpenCV's fonts have no degree sign): rotation in
    /// degrees, translation in millimetres (poses are in metres).
    public static func label(_ sigma: PoseSigma) -> String {
        let degrees = sigma.rotation < 0.1 ? String(format: "%.3f", sigma.rotation) : String(format: "%.2f", sigma.rotation)
        return "+-\(degrees)deg \(String(format: "%.2f", sigma.translation * 1000))mm"
    }

    /// A target's axes (a board's or a marker map's, `detect --board`): x red, y green, z blue, `length`
    /// long in the pose's unit, from its origin, twice as thick as a marker's.
    public func drawAxes(_ frame: inout Frame, pose: MarkerPose, length: Double, sigma: PoseSigma? = nil) throws {
        guard let calibration = poseEstimator?.calibration else { return }
        let thickness = 2 * max(1, min(frame.width, frame.height) / 400)
        let axes = try calibration.project([(0, 0, 0), (length, 0, 0), (0, length, 0), (0, 0, length)], pose: Pose3D(rvec: pose.rvec, tvec: pose.tvec))
        try polyline(&frame, [axes[0], axes[1]], closed: false, color: (0, 0, 255), thickness: 2 * thickness)
        try polyline(&frame, [axes[0], axes[2]], closed: false, color: (0, 255, 0), thickness: 2 * thickness)
        try polyline(&frame, [axes[0], axes[3]], closed: false, color: (255, 0, 0), thickness: 2 * thickness)
        try circle(&frame, axes[0], radius: Double(3 * thickness), color: (255, 255, 255), thickness: -1)
        if let sigma {
            let scale = max(0.4, Double(thickness) * 0.25)
            try outlinedText(&frame, Self.label(sigma), at: Point2(x: axes[0].x, y: axes[0].y + 30 * scale), scale: scale, color: (255, 255, 255),
                             thickness: max(1, thickness / 2))
        }
    }

    /// Dots at `points` (a chessboard's corners in a preview), joined in order.
    public func drawPoints(_ frame: inout Frame, _ points: [Point2], color: (Int32, Int32, Int32)) throws {
        guard points.count >= 2 else { return }
        let thickness = max(1, min(frame.width, frame.height) / 400)
        try polyline(&frame, points, closed: false, color: color, thickness: thickness)
        for p in points { try circle(&frame, p, radius: Double(2 + thickness), color: color, thickness: -1) }
    }

    /// A ChArUco board's corners: a cross at each, its corner ID beside it.
    public func drawBoardCorners(_ frame: inout Frame, _ corners: [CharucoDetection.Corner]) throws {
        let thickness = max(1, min(frame.width, frame.height) / 500), size = Double(3 + 2 * thickness)
        for corner in corners {
            let p = corner.point
            try polyline(&frame, [Point2(x: p.x - size, y: p.y), Point2(x: p.x + size, y: p.y)], closed: false, color: (255, 0, 255), thickness: thickness)
            try polyline(&frame, [Point2(x: p.x, y: p.y - size), Point2(x: p.x, y: p.y + size)], closed: false, color: (255, 0, 255), thickness: thickness)
            let label = String(corner.id), scale = 0.3 + 0.1 * Double(thickness)
            try text(&frame, label, at: Point2(x: p.x + size + 10 * scale * Double(label.count) + 2, y: p.y - size - 10 * scale), scale: scale,
                     color: (255, 0, 255), thickness: 1)
        }
    }

    /// A place to point the user at (where to hold the board next): two red rings and a label, kept
    /// inside the picture.
    public func drawTarget(_ frame: inout Frame, at p: Point2, label: String) throws {
        let thickness = max(1, min(frame.width, frame.height) / 300), radius = Double(min(frame.width, frame.height)) / 12
        try circle(&frame, p, radius: radius, color: (0, 0, 255), thickness: thickness)
        try circle(&frame, p, radius: radius / 3, color: (0, 0, 255), thickness: thickness)
        // `text` centres the label on x (about 20 px a character at scale 1).
        let scale = 0.35 + 0.1 * Double(thickness), half = 10 * scale * Double(label.count)
        let x = min(max(half + 2, p.x), Double(frame.width) - half - 2)
        let y = p.y + radius + 14 * scale < Double(frame.height) - 4 ? p.y + radius + 14 * scale : p.y - radius - 6
        try text(&frame, label, at: Point2(x: x, y: y), scale: scale, color: (0, 0, 255), thickness: thickness)
    }

    private func polyline(_ frame: inout Frame, _ points: [Point2], closed: Bool, color: (Int32, Int32, Int32), thickness: Int) throws {
        let xy = points.flatMap { [$0.x, $0.y] }
        let (w, h, stride) = (Int32(frame.width), Int32(frame.height), Int32(frame.stride))
        try Bridge.check(frame.bytes.withUnsafeMutableBufferPointer {
            cvb_draw_polyline($0.baseAddress, w, h, stride, xy, Int32(points.count), closed ? 1 : 0,
                              color.0, color.1, color.2, Int32(thickness))
        })
    }

    private func circle(_ frame: inout Frame, _ p: Point2, radius: Double, color: (Int32, Int32, Int32), thickness: Int) throws {
        let (w, h, stride) = (Int32(frame.width), Int32(frame.height), Int32(frame.stride))
        try Bridge.check(frame.bytes.withUnsafeMutableBufferPointer {
            cvb_draw_circle($0.baseAddress, w, h, stride, p.x, p.y, radius, color.0, color.1, color.2, Int32(thickness))
        })
    }

    /// Text in `color` over a black outline, readable on light and dark pictures alike.
    private func outlinedText(_ frame: inout Frame, _ s: String, at p: Point2, scale: Double, color: (Int32, Int32, Int32), thickness: Int) throws {
        try text(&frame, s, at: p, scale: scale, color: (0, 0, 0), thickness: thickness + 2)
        try text(&frame, s, at: p, scale: scale, color: color, thickness: thickness)
    }

    private func text(_ frame: inout Frame, _ s: String, at p: Point2, scale: Double, color: (Int32, Int32, Int32), thickness: Int) throws {
        let (w, h, stride) = (Int32(frame.width), Int32(frame.height), Int32(frame.stride))
        try Bridge.check(frame.bytes.withUnsafeMutableBufferPointer {
            cvb_draw_text($0.baseAddress, w, h, stride, s, p.x - 10 * scale * Double(s.count), p.y + 10 * scale,
                          scale, color.0, color.1, color.2, Int32(thickness))
        })
    }
}

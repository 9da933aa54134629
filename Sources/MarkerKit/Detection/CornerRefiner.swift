/// Stage 9: sub-pixel corners. A marker's corners are L-corners, where corner detectors made for
/// chessboard X-corners are biased; instead each outer edge is located to sub-pixel precision at many
/// points along its length, a line is fitted to each edge, and the corners are where neighbouring lines
/// meet.
public enum CornerRefiner {
    public static func refine(_ corners: [Point2], in image: GrayImage) -> [Point2] {
        var edges: [[(t: Double, point: Point2)]] = []
        for side in 0..<4 {
            let points = edgePoints(from: corners[side], to: corners[(side + 1) % 4], in: image)
            guard points.count >= 8 else { return corners }
            edges.append(points)
        }
        let sideLength = (0..<4).map { corners[$0].distance(to: corners[($0 + 1) % 4]) }.min()!
        let maxMove = max(1.5, sideLength / 10)
        var refined: [Point2] = []
        for i in 0..<4 {
            // Corner i ends edge i-1 and starts edge i. Each line is fitted to the half of its edge nearer
            // the corner: a lens bends long edges, and the near half bends four times less.
            let incoming = edges[(i + 3) % 4].filter { $0.t >= 0.45 }.map(\.point)
            let outgoing = edges[i].filter { $0.t <= 0.55 }.map(\.point)
            guard incoming.count >= 4, outgoing.count >= 4,
                  let p = intersect(fitLine(incoming), fitLine(outgoing)), p.distance(to: corners[i]) <= maxMove else {
                return corners
            }
            refined.append(p)
        }
        return refined
    }

    /// Sub-pixel points on the edge between two corners, each with its position t (0 at `a`, 1 at `b`).
    ///
    /// Each edge point comes from a profile across the edge, one sample per pixel along the normal from
    /// the light quiet zone outside to the black border inside. The edge sits where the light area ends:
    /// with the profile normalised to 1 (light) .. 0 (dark), the sum of the samples is the distance from
    /// the profile's outer end to the edge. For an edge blurred or antialiased by area coverage this is
    /// exact where the peak of a gradient is biased towards pixel centres.
    static func edgePoints(from a: Point2, to b: Point2, in image: GrayImage) -> [(t: Double, point: Point2)] {
        let length = a.distance(to: b)
        guard length >= 4 else { return [] }
        let d = Point2(x: (b.x - a.x) / length, y: (b.y - a.y) / length)
        // Corners go clockwise in the image, so this normal points into the marker.
        let n = Point2(x: -d.y, y: d.x)
        // Stay within the black border (one cell, length / 7) and the quiet zone.
        let reach = max(2, min(Int(length / 7 * 0.45), 6))
        let samples = min(max(Int(length / 1.5), 12), 60)
        var points: [(t: Double, point: Point2)] = []
        var strengths: [Double] = []
        for k in 0..<samples {
            let t = 0.08 + 0.84 * Double(k) / Double(samples - 1)
            let base = Point2(x: a.x + (b.x - a.x) * t, y: a.y + (b.y - a.y) * t)
            let profile = (-reach...reach).map { s in image.sample(base.x + n.x * Double(s), base.y + n.y * Double(s)) }
            let light = (profile[0] + profile[1]) / 2
            let dark = (profile[profile.count - 1] + profile[profile.count - 2]) / 2
            let contrast = light - dark
            guard contrast > 10 else { continue }
            let lightArea = profile.reduce(0.0) { $0 + min(1, max(0, ($1 - dark) / contrast)) }
            // Sample j covers [j - 0.5, j + 0.5] around offset j - reach.
            let along = -Double(reach) - 0.5 + lightArea
            points.append((t, Point2(x: base.x + n.x * along, y: base.y + n.y * along)))
            strengths.append(contrast)
        }
        guard points.count >= 4 else { return [] }
        // Weak edge points (glare, occlusion) are dropped before fitting.
        let median = strengths.sorted()[strengths.count / 2]
        return zip(points, strengths).filter { $0.1 >= 0.5 * median }.map(\.0)
    }

    /// Total least squares line through points: their centroid and principal direction.
    static func fitLine(_ points: [Point2]) -> (point: Point2, direction: Point2) {
        let count = Double(points.count)
        let cx = points.map(\.x).reduce(0, +) / count, cy = points.map(\.y).reduce(0, +) / count
        var sxx = 0.0, sxy = 0.0, syy = 0.0
        for p in points {
            sxx += (p.x - cx) * (p.x - cx); sxy += (p.x - cx) * (p.y - cy); syy += (p.y - cy) * (p.y - cy)
        }
        let angle = 0.5 * atan2(2 * sxy, sxx - syy)
        return (Point2(x: cx, y: cy), Point2(x: cos(angle), y: sin(angle)))
    }

    static func intersect(_ l1: (point: Point2, direction: Point2), _ l2: (point: Point2, direction: Point2)) -> Point2? {
        let det = l1.direction.x * l2.direction.y - l1.direction.y * l2.direction.x
        guard abs(det) > 1e-9 else { return nil }
        let dx = l2.point.x - l1.point.x, dy = l2.point.y - l1.point.y
        let t = (dx * l2.direction.y - dy * l2.direction.x) / det
        return Point2(x: l1.point.x + t * l1.direction.x, y: l1.point.y + t * l1.direction.y)
    }
}

import Foundation

/// Point-in-quadrilateral tests shared by the detector (which candidate lies inside which, which read
/// lies inside a marker) and the renderer (which pixels a marker covers).
enum SceneGeometry {
    /// Whether `p` lies inside the convex quadrilateral `quad` (edges included; the renderer's test).
    static func contains(_ quad: [Point2], _ p: Point2) -> Bool {
        sameSideOfEveryEdge(Quad(corners: quad), p)
    }

    /// The same for a candidate or a marker (convex): a point outside the corners' bounding box is
    /// outside at once. The detector asks this of every candidate against every larger one and every
    /// marker read (thousands of times a frame with 50 markers); the box answers most of them.
    static func contains(_ quad: Quad, _ p: Point2) -> Bool {
        let a = quad[0], b = quad[1], c = quad[2], d = quad[3]
        guard p.x >= min(min(a.x, b.x), min(c.x, d.x)), p.x <= max(max(a.x, b.x), max(c.x, d.x)),
              p.y >= min(min(a.y, b.y), min(c.y, d.y)), p.y <= max(max(a.y, b.y), max(c.y, d.y)) else { return false }
        return sameSideOfEveryEdge(quad, p)
    }

    private static func sameSideOfEveryEdge(_ quad: Quad, _ p: Point2) -> Bool {
        var sign = 0.0
        for i in 0..<4 {
            let a = quad[i], b = quad[(i + 1) % 4]
            let cross = (b.x - a.x) * (p.y - a.y) - (b.y - a.y) * (p.x - a.x)
            if cross != 0 {
                if sign == 0 { sign = cross } else if (cross > 0) != (sign > 0) { return false }
            }
        }
        return true
    }
}


import CVBridge

/// A convex four-sided outline that may be a marker; corners go clockwise as seen in the image
/// (y down), starting anywhere.
public struct Quad: Sendable, Equatable {
    public var corners: [Point2]

    public var perimeter: Double {
        var sum = 0.0
        for i in 0..<4 { sum += corners[i].distance(to: corners[(i + 1) % 4]) }
        return sum
    }

    public var center: Point2 {
        Point2(x: (corners[0].x + corners[1].x + corners[2].x + corners[3].x) / 4,
               y: (corners[0].y + corners[1].y + corners[2].y + corners[3].y) / 4)
    }

    /// The quadrilateral with every edge moved `distance` pixels outwards (corners clockwise, y down),
    /// its corners where the moved edges meet.
    public func outset(by distance: Double) -> Quad {
        guard distance != 0 else { return self }
        var lines = InlineArray<4, (point: Point2, direction: Point2)>(repeating: (Point2(x: 0, y: 0), Point2(x: 0, y: 0)))
        for i in 0..<4 {
            let a = corners[i], b = corners[(i + 1) % 4]
            let length = a.distance(to: b)
            guard length > 0 else { return self }
            let d = Point2(x: (b.x - a.x) / length, y: (b.y - a.y) / length)
            lines[i] = (Point2(x: a.x + d.y * distance, y: a.y - d.x * distance), d)
        }
        var moved = corners
        for i in 0..<4 {
            // Corner i ends edge i-1 and starts edge i.
            guard let p = CornerRefiner.intersect(lines[(i + 3) % 4], lines[i]) else { return self }
            moved[i] = p
        }
        return Quad(corners: moved)
    }

    public var shortestSide: Double {
        var shortest = Double.infinity
        for i in 0..<4 { shortest = min(shortest, corners[i].distance(to: corners[(i + 1) % 4])) }
        return shortest
    }
}

/// Stage 4: contours to convex 4-gons: polygon approximation, convexity, minimum side, distance to the
/// image edge, clockwise order; near-duplicates (the inner and outer edge of a border, the same outline
/// from several thresholds) are merged, keeping the larger.
public enum QuadCandidates {
    public static func quads(from contours: Contours.ContourSet, imageWidth: Int, imageHeight: Int,
                             parameters: DetectorParameters) throws -> [Quad] {
        var quads: [Quad] = []
        var vertices = [Int32](repeating: 0, count: 16)
        for index in 0..<contours.count {
            let length = contours.length(index)
            let epsilon = Double(length) * parameters.polygonAccuracyRate
            let count = contours.points.withUnsafeBufferPointer { points in
                vertices.withUnsafeMutableBufferPointer {
                    cvb_simplify_contour(points.baseAddress! + 2 * Int(contours.offsets[index]), Int32(length), epsilon, $0.baseAddress, 8)
                }
            }
            guard count >= 0 else { throw MarkerKitError.internalFailure(String(cString: cvb_last_error())) }
            guard count == 4 else { continue }
            // Checked on the stack; only a candidate that passes becomes a Quad (an array).
            var corners = InlineArray<4, Point2>(repeating: Point2(x: 0, y: 0))
            for i in 0..<4 { corners[i] = Point2(x: Double(vertices[2 * i]), y: Double(vertices[2 * i + 1])) }
            guard isConvex(corners) else { continue }
            var perimeter = 0.0, shortest = Double.infinity
            for i in 0..<4 {
                let side = corners[i].distance(to: corners[(i + 1) % 4])
                perimeter += side
                shortest = min(shortest, side)
            }
            guard shortest >= parameters.minSideRate * perimeter else { continue }
            let border = parameters.minDistanceToBorder
            var inside = true
            for i in 0..<4 {
                let c = corners[i]
                inside = inside && c.x >= border && c.y >= border && c.x <= Double(imageWidth - 1) - border && c.y <= Double(imageHeight - 1) - border
            }
            guard inside else { continue }
            if cross(corners[0], corners[1], corners[2]) < 0 { corners.swapAt(1, 3) }
            quads.append(Quad(corners: [corners[0], corners[1], corners[2], corners[3]]))
        }
        return removeDuplicates(quads, rate: parameters.duplicateDistanceRate)
    }

    /// z of (b - a) x (c - a).
    static func cross(_ a: Point2, _ b: Point2, _ c: Point2) -> Double {
        (b.x - a.x) * (c.y - a.y) - (b.y - a.y) * (c.x - a.x)
    }

    static func isConvex(_ p: InlineArray<4, Point2>) -> Bool {
        var positive = 0, negative = 0
        for i in 0..<4 {
            let c = cross(p[i], p[(i + 1) % 4], p[(i + 2) % 4])
            if c > 0 { positive += 1 } else if c < 0 { negative += 1 }
        }
        return positive == 4 || negative == 4
    }

    /// Mean distance between matching corners, over the best of the four cyclic pairings.
    static func meanCornerDistance(_ a: Quad, _ b: Quad) -> Double {
        var best = Double.infinity
        for shift in 0..<4 {
            var sum = 0.0
            for i in 0..<4 { sum += a.corners[i].distance(to: b.corners[(i + shift) % 4]) }
            best = min(best, sum / 4)
        }
        return best
    }

    static func removeDuplicates(_ quads: [Quad], rate: Double) -> [Quad] {
        // Larger first, so that each kept quad is the largest of its group.
        let sorted = quads.map { ($0, $0.perimeter) }.sorted { $0.1 > $1.1 }.map(\.0)
        var kept: [Quad] = []
        for quad in sorted {
            let perimeter = quad.perimeter
            let center = quad.center
            let duplicate = kept.contains { other in
                // Cheap rejection first: centres farther apart than a side cannot be duplicates.
                abs(other.center.x - center.x) < perimeter / 4 && abs(other.center.y - center.y) < perimeter / 4
                    && meanCornerDistance(quad, other) < rate * min(perimeter, other.perimeter)
            }
            if !duplicate { kept.append(quad) }
        }
        return kept
    }
}

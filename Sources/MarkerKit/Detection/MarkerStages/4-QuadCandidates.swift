import MarkerKitKernels

/// Stage 4: contours to convex 4-gons: polygon approximation, convexity, minimum side, distance to the
/// image edge, clockwise order; near-duplicates (the same outline from several thresholds) are merged,
/// keeping the larger, but a clearly smaller square close inside a larger one is kept.
public enum QuadCandidates {
    public static func quads(from contours: Contours.ContourSet, imageWidth: Int, imageHeight: Int,
                             parameters: DetectorParameters) throws -> [Quad] {
        var quads: [Quad] = []
        try self.quads(from: contours, imageWidth: imageWidth, imageHeight: imageHeight, parameters: parameters, into: &quads)
        return quads
    }

    /// The same into `quads`, reusing its storage (the detector keeps one array from frame to frame).
    public static func quads(from contours: Contours.ContourSet, imageWidth: Int, imageHeight: Int,
                             parameters: DetectorParameters, into quads: inout [Quad]) throws {
        quads.removeAll(keepingCapacity: true)
        try appendQuads(from: contours, imageWidth: imageWidth, imageHeight: imageHeight, parameters: parameters, to: &quads)
        removeDuplicates(&quads, rate: parameters.duplicateDistanceRate, nestedRate: parameters.nestedPerimeterRate)
    }

    /// The convex 4-gons of `contours` appended to `quads`, in contour order, duplicates not yet merged:
    /// one threshold pass's share (the passes run in parallel, then their candidates are merged).
    /// Contours shorter than `minLength` points are passed over (the set may hold shorter ones for
    /// `LocalSearch`).
    static func appendQuads(from contours: Contours.ContourSet, imageWidth: Int, imageHeight: Int,
                            parameters: DetectorParameters, minLength: Int = 0, to quads: inout [Quad]) throws {
        try appendQuads(from: contours, imageWidth: imageWidth, imageHeight: imageHeight, parameters: parameters, minLength: minLength,
                        passingOver: { _ in false }, to: &quads)
    }

    /// The same, passing over the contours `passOver` picks (by index) before their polygons are made.
    static func appendQuads(from contours: Contours.ContourSet, imageWidth: Int, imageHeight: Int, parameters: DetectorParameters,
                            minLength: Int = 0, passingOver passOver: (Int) -> Bool, to quads: inout [Quad]) throws {
        // The polygon's vertices on the stack.
        try withUnsafeTemporaryAllocation(of: Int32.self, capacity: 16) { vertices in
            for index in 0..<contours.count {
                let length = contours.length(index)
                guard length >= minLength, !passOver(index) else { continue }
                let epsilon = Double(length) * parameters.polygonAccuracyRate
                // Room for the four vertices wanted: the split gives up past eight (on a page of small
                // text most contours go on far past that). Of 1.4 million contours of cluttered renders and
                // the shared real photos, every one gave the same quadrilateral, or none, as with room for 8.
                let count = contours.points.withUnsafeBufferPointer { points in
                    mkk_simplify_contour(points.baseAddress! + 2 * Int(contours.offsets[index]), Int32(length), epsilon, vertices.baseAddress, 4)
                }
                try Bridge.check(count)
                guard count == 4 else { continue }
                // Checked on the stack; only a candidate that passes becomes a Quad.
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
                quads.append(Quad(corners[0], corners[1], corners[2], corners[3]))
            }
        }
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
            for i in 0..<4 { sum += a[i].distance(to: b[(i + shift) % 4]) }
            best = min(best, sum / 4)
        }
        return best
    }

    /// A candidate with its perimeter and centre, worked out once for the merge's comparisons.
    struct Keyed {
        var quad: Quad
        var perimeter: Double
        var center: Point2
    }

    /// Near-duplicates merged in place, the largest of each group kept, largest first. A candidate with
    /// less than `nestedRate` of a close one's perimeter is a square inside it (a marker in its white
    /// frame), not a duplicate: it is kept, and the reader reads it only when the larger one does not
    /// read, since it lies inside it.
    static func removeDuplicates(_ quads: inout [Quad], rate: Double, nestedRate: Double) {
        var scratch: [Keyed] = []
        removeDuplicates(&quads, rate: rate, nestedRate: nestedRate, scratch: &scratch)
    }

    /// The same with `scratch` for the candidates' perimeters and centres (a detector keeps one from frame
    /// to frame). Each is worked out once: the sort and the merge asked for them again at every comparison
    /// (a third of the stage with 300 candidates).
    static func removeDuplicates(_ quads: inout [Quad], rate: Double, nestedRate: Double, scratch keyed: inout [Keyed]) {
        keyed.removeAll(keepingCapacity: true)
        for quad in quads { keyed.append(Keyed(quad: quad, perimeter: quad.perimeter, center: quad.center)) }
        // Larger first (a stable insertion sort: the arrays are short, and it needs no buffer).
        var i = 1
        while i < keyed.count {
            let item = keyed[i]
            var j = i
            while j > 0, keyed[j - 1].perimeter < item.perimeter {
                keyed[j] = keyed[j - 1]
                j -= 1
            }
            keyed[j] = item
            i += 1
        }
        var kept = 0
        for index in keyed.indices {
            let item = keyed[index], perimeter = item.perimeter, center = item.center
            var duplicate = false
            for k in 0..<kept where !duplicate {
                let other = keyed[k]
                // Cheap rejection first: centres farther apart than a side cannot be duplicates.
                duplicate = abs(other.center.x - center.x) < perimeter / 4 && abs(other.center.y - center.y) < perimeter / 4
                    && perimeter >= nestedRate * other.perimeter
                    && meanCornerDistance(item.quad, other.quad) < rate * min(perimeter, other.perimeter)
            }
            if !duplicate {
                keyed[kept] = item
                kept += 1
            }
        }
        quads.removeAll(keepingCapacity: true)
        for k in 0..<kept { quads.append(keyed[k].quad) }
    }
}

/// A convex four-sided outline that may be a marker; corners go clockwise as seen in the image
/// (y down), starting anywhere. The corners are stored in the value itself (no array), since the
/// detector makes and drops hundreds of these per frame.
public struct Quad: Sendable, Equatable {
    private var c0, c1, c2, c3: Point2

    public init(_ c0: Point2, _ c1: Point2, _ c2: Point2, _ c3: Point2) {
        (self.c0, self.c1, self.c2, self.c3) = (c0, c1, c2, c3)
    }

    public init(corners: [Point2]) {
        precondition(corners.count == 4, "a quadrilateral has four corners")
        self.init(corners[0], corners[1], corners[2], corners[3])
    }

    /// Corner `i` (0..<4).
    public subscript(i: Int) -> Point2 {
        get {
            switch i {
            case 0: return c0
            case 1: return c1
            case 2: return c2
            default: precondition(i == 3, "corner \(i) of a quadrilateral"); return c3
            }
        }
        set {
            switch i {
            case 0: c0 = newValue
            case 1: c1 = newValue
            case 2: c2 = newValue
            default: precondition(i == 3, "corner \(i) of a quadrilateral"); c3 = newValue
            }
        }
    }

    /// The corners as an array (which allocates: the detector's own stages use the subscript).
    public var corners: [Point2] { [c0, c1, c2, c3] }

    /// Every corner through `transform`.
    public func map(_ transform: (Point2) -> Point2) -> Quad {
        Quad(transform(c0), transform(c1), transform(c2), transform(c3))
    }

    public var perimeter: Double {
        var sum = 0.0
        for i in 0..<4 { sum += self[i].distance(to: self[(i + 1) % 4]) }
        return sum
    }

    public var center: Point2 {
        Point2(x: (c0.x + c1.x + c2.x + c3.x) / 4, y: (c0.y + c1.y + c2.y + c3.y) / 4)
    }

    /// The quadrilateral with every edge moved `distance` pixels outwards (corners clockwise, y down),
    /// its corners where the moved edges meet.
    public func outset(by distance: Double) -> Quad {
        guard distance != 0 else { return self }
        var lines = InlineArray<4, (point: Point2, direction: Point2)>(repeating: (Point2(x: 0, y: 0), Point2(x: 0, y: 0)))
        for i in 0..<4 {
            let a = self[i], b = self[(i + 1) % 4]
            let length = a.distance(to: b)
            guard length > 0 else { return self }
            let d = Point2(x: (b.x - a.x) / length, y: (b.y - a.y) / length)
            lines[i] = (Point2(x: a.x + d.y * distance, y: a.y - d.x * distance), d)
        }
        var moved = self
        for i in 0..<4 {
            // Corner i ends edge i-1 and starts edge i.
            guard let p = Point2.intersection(lines[(i + 3) % 4], lines[i]) else { return self }
            moved[i] = p
        }
        return moved
    }

    public var shortestSide: Double {
        var shortest = Double.infinity
        for i in 0..<4 { shortest = min(shortest, self[i].distance(to: self[(i + 1) % 4])) }
        return shortest
    }
}

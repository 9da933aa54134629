/// Points in square buckets of one size, for "the nearest point within r" without looking at them all.
struct PointIndex {
    private(set) var points: [Point2] = []
    private var buckets: [Int: [Int]] = [:]
    let cell: Double

    init(cell: Double) {
        precondition(cell > 0)
        self.cell = cell
    }

    private func key(_ bx: Int, _ by: Int) -> Int { bx &* 73_856_093 ^ by &* 19_349_663 }
    private func bucket(_ v: Double) -> Int { Int((v / cell).rounded(.down).clamped(to: -1e9...1e9)) }

    /// Adds `p`; returns its index.
    @discardableResult mutating func insert(_ p: Point2) -> Int {
        points.append(p)
        buckets[key(bucket(p.x), bucket(p.y)), default: []].append(points.count - 1)
        return points.count - 1
    }

    /// The indices of the `k` points nearest `p` (nearest first) no farther than `radius`, skipping those
    /// `skip` refuses; the buckets are searched outwards, so a dense neighbourhood costs little.
    func nearest(_ k: Int, to p: Point2, within radius: Double, skip: (Int) -> Bool = { _ in false }) -> [Int] {
        guard k > 0, radius > 0, p.x.isFinite, p.y.isFinite else { return [] }
        var reach = cell
        while true {
            var r = min(reach, radius)
            var found: [(Int, Double)] = []
            if r > 64 * cell {
                // Far enough to look at every point.
                r = radius
                for i in points.indices where !skip(i) {
                    let d = points[i].distance(to: p)
                    if d <= r { found.append((i, d)) }
                }
            } else {
                for by in bucket(p.y - r)...bucket(p.y + r) {
                    for bx in bucket(p.x - r)...bucket(p.x + r) {
                        for i in buckets[key(bx, by)] ?? [] where !skip(i) {
                            let d = points[i].distance(to: p)
                            if d <= r, bucket(points[i].x) == bx, bucket(points[i].y) == by { found.append((i, d)) }
                        }
                    }
                }
            }
            // Enough within r: no point outside r is nearer than these.
            if found.count >= k || r >= radius { return found.sorted { $0.1 < $1.1 }.prefix(k).map(\.0) }
            reach *= 2
        }
    }

    /// The index of the point nearest `p` no farther than `radius`, skipping those `skip` refuses.
    func nearest(to p: Point2, within radius: Double, skip: (Int) -> Bool = { _ in false }) -> Int? {
        guard radius > 0, radius.isFinite, p.x.isFinite, p.y.isFinite else { return nil }
        var best: (Int, Double)?
        if radius > 64 * cell {
            for i in points.indices where !skip(i) {
                let d = points[i].distance(to: p)
                if d <= radius, d < (best?.1 ?? .infinity) { best = (i, d) }
            }
            return best?.0
        }
        for by in bucket(p.y - radius)...bucket(p.y + radius) {
            for bx in bucket(p.x - radius)...bucket(p.x + radius) {
                for i in buckets[key(bx, by)] ?? [] where !skip(i) {
                    let d = points[i].distance(to: p)
                    if d <= radius, d < (best?.1 ?? .infinity) { best = (i, d) }
                }
            }
        }
        return best?.0
    }
}

private extension Double {
    func clamped(to range: ClosedRange<Double>) -> Double { Swift.min(Swift.max(self, range.lowerBound), range.upperBound) }
}

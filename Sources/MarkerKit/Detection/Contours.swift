import CVBridge

/// Stage 3: the boundaries of dark regions, by OpenCV's findContours; only those whose length could be
/// a marker's perimeter cross the bridge.
public enum Contours {
    /// Closed chains of integer pixel positions, all in one buffer: contour i is points
    /// offsets[i] ..< offsets[i + 1] (x, y pairs). One buffer per pass, not one per contour.
    public struct ContourSet: Sendable {
        public var points: [Int32] = []
        public var offsets: [Int32] = [0]
        public var count: Int { offsets.count - 1 }

        public init() {}

        /// Empties the set, keeping its memory for the next frame.
        public mutating func removeAll() {
            points.removeAll(keepingCapacity: true)
            offsets.removeAll(keepingCapacity: true)
            offsets.append(0)
        }

        /// Number of points of contour i.
        public func length(_ i: Int) -> Int { Int(offsets[i + 1] - offsets[i]) }
    }

    /// Adds the contours of `binary` to `set` (the bridge's output is the thread's own, read at once).
    public static func find(in binary: GrayImage, minPoints: Int, maxPoints: Int, into set: inout ContourSet) throws {
        var found = cvb_contours()
        let status = binary.pixels.withUnsafeBufferPointer {
            cvb_find_contours($0.baseAddress, Int32(binary.width), Int32(binary.height), Int32(binary.width),
                              Int32(minPoints), Int32(maxPoints), &found)
        }
        guard status >= 0 else { throw MarkerKitError.internalFailure(String(cString: cvb_last_error())) }
        guard found.count > 0 else { return }
        let base = Int32(set.points.count / 2)
        let total = Int(found.offsets[Int(found.count)])
        set.points.append(contentsOf: UnsafeBufferPointer(start: found.points, count: 2 * total))
        for i in 1...Int(found.count) { set.offsets.append(base + found.offsets[i]) }
    }
}

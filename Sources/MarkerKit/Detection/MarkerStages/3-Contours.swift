import MarkerKitKernels

/// Stage 3: the boundaries of dark regions, by OpenCV's findContours; only those whose length could be
/// a marker's perimeter cross the bridge. The detector takes outer borders only (`holes: false`): a
/// marker's outline is the outer border of its dark ring, and a hole border (the ring's inner edge, a
/// chessboard's white square, a sheet on a dark desk) never was one; the reader passed them over
/// (inside a marker) or refused them (light cards). At 640x480 with 50 markers they were 439 of the
/// 798 contours long enough to be candidates and 54 of the 152 candidates handed to the reader, and
/// leaving them out changed no detection in any real set or in 1000 renders (docs/MEASUREMENTS.md,
/// "Thread counts").
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

    /// Adds the contours of `binary` to `set` (the bridge's output is the thread's own, read at once);
    /// without `holes`, only the outer borders.
    public static func find(in binary: GrayImage, minPoints: Int, maxPoints: Int, holes: Bool = true, into set: inout ContourSet) throws {
        try binary.pixels.withUnsafeBufferPointer {
            try find(in: $0, width: binary.width, height: binary.height, minPoints: minPoints, maxPoints: maxPoints, holes: holes, into: &set)
        }
    }

    /// A tracing job's own buffers (`mkk_find_contours_in`): a threshold window's pass keeps one, so what
    /// tracing allocates follows the window, not whichever worker traced it.
    final class Workspace {
        let pointer: OpaquePointer
        init() {
            guard let made = mkk_trace_workspace_create() else { fatalError("out of memory for a contour workspace") }
            pointer = made
        }
        deinit { mkk_trace_workspace_destroy(pointer) }
    }

    /// The same on a packed binary image in memory the caller holds (one of AdaptiveThreshold.binaries),
    /// in `workspace`'s buffers (nil: this thread's).
    static func find(in binary: UnsafeBufferPointer<UInt8>, width: Int, height: Int, minPoints: Int, maxPoints: Int,
                     holes: Bool = true, workspace: Workspace? = nil, into set: inout ContourSet) throws {
        precondition(binary.count >= width * height, "a binary image of width x height pixels")
        var found = mkk_contours()
        let withHoles: Int32 = holes ? 1 : 0
        let status = workspace.map {
            mkk_find_contours_in($0.pointer, binary.baseAddress, Int32(width), Int32(height), Int32(width), Int32(minPoints), Int32(maxPoints),
                                 withHoles, &found)
        } ?? mkk_find_contours(binary.baseAddress, Int32(width), Int32(height), Int32(width), Int32(minPoints), Int32(maxPoints), withHoles, &found)
        try Bridge.check(status)
        guard found.count > 0 else { return }
        let base = Int32(set.points.count / 2)
        let total = Int(found.offsets[Int(found.count)])
        set.points.append(contentsOf: UnsafeBufferPointer(start: found.points, count: 2 * total))
        for i in 1...Int(found.count) { set.offsets.append(base + found.offsets[i]) }
    }
}

import MarkerKitKernels

/// Stage 3: the boundaries of dark regions, by OpenCV's findContours; only those whose length could be
/// a marker's perimeter cross the bridge. The detector takes outer borders only, but in its narrowest
/// threshold windows (`DetectorParameters.holeBordersUpToWindow`): a marker's outline is the outer border of
/// its dark ring, and a hole border (the ring's inner edge, a chessboard's white square, a sheet on a dark
/// desk) mostly is not; the reader passed them over (inside a marker) or refused them (light cards). At
/// 640x480 with 50 markers they were 439 of the 798 contours long enough to be candidates and 54 of the 152
/// candidates handed to the reader (docs/MEASUREMENTS.md, "Thread counts"). The exception: with a 3 px
/// window a sharp marker is a ring one pixel wide, and where two markers touch at a corner (ArUco's marker
/// chessboards) their rings join there, so the outer border runs round both and is no quadrilateral; the
/// ring's hole border is then the marker's only outline.
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

    /// The most images `find(together:)` traces in one call.
    static let togetherMax = 4 // MKK_TRACE_TOGETHER_MAX, the lists' size in find(together:)

    /// One image's contours from `find(together:)`, valid until its workspace's next call.
    struct Found {
        fileprivate let contours: mkk_contours
    }

    /// Up to `togetherMax` binary images of one size (`image(k)`: the packed pixels and the workspace
    /// whose buffers its tracing uses) traced at once, outer borders only unless `holes(k)`: their borders
    /// are followed a step of each in turn, which overlaps the steps in the processor
    /// (`mkk_find_contours_together`). Image k's contours are handed to `found` as k, then added to a set
    /// with `ContourSet.append`.
    static func find(together count: Int, width: Int, height: Int, minPoints: Int, maxPoints: Int, holes: (Int) -> Bool,
                     image: (Int) -> (binary: UnsafePointer<UInt8>, workspace: Workspace), found: (Int, Found) -> Void) throws {
        precondition((1...togetherMax).contains(count), "1 to \(togetherMax) images at once")
        // The lists on the stack (a frame's work allocates nothing).
        var workspaces = InlineArray<4, OpaquePointer?>(repeating: nil)
        var binaries = InlineArray<4, UnsafePointer<UInt8>?>(repeating: nil)
        var outs = InlineArray<4, mkk_contours>(repeating: mkk_contours())
        var holeMask: Int32 = 0
        for k in 0..<count {
            let (binary, workspace) = image(k)
            workspaces[k] = workspace.pointer
            binaries[k] = binary
            if holes(k) { holeMask |= 1 << Int32(k) }
        }
        let status = withUnsafePointer(to: &workspaces) { workspaces in
            withUnsafePointer(to: &binaries) { binaries in
                withUnsafeMutablePointer(to: &outs) { outs in
                    mkk_find_contours_together(UnsafeRawPointer(workspaces).assumingMemoryBound(to: OpaquePointer?.self),
                                               UnsafeRawPointer(binaries).assumingMemoryBound(to: UnsafePointer<UInt8>?.self), Int32(count),
                                               Int32(width), Int32(height), Int32(width), Int32(minPoints), Int32(maxPoints), holeMask,
                                               UnsafeMutableRawPointer(outs).assumingMemoryBound(to: mkk_contours.self))
                }
            }
        }
        try Bridge.check(status)
        for k in 0..<count { found(k, Found(contours: outs[k])) }
    }

    /// The hole borders alone of a part of a binary image in memory the caller holds (`width` x `height`
    /// pixels from `binary`, rows `stride` apart), in `workspace`'s buffers; points relative to the part.
    static func findHoles(in binary: UnsafePointer<UInt8>, width: Int, height: Int, stride: Int, minPoints: Int, maxPoints: Int,
                          workspace: Workspace, into set: inout ContourSet) throws {
        var found = mkk_contours()
        try Bridge.check(mkk_find_contours_in(workspace.pointer, binary, Int32(width), Int32(height), Int32(stride), Int32(minPoints),
                                              Int32(maxPoints), MKK_TRACE_HOLES_ONLY, &found))
        set.append(Found(contours: found))
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
        set.append(Found(contours: found))
    }
}

extension Contours.ContourSet {
    /// Adds contours the tracer found (copied: the tracer's buffers are reused by its next call).
    mutating func append(_ found: Contours.Found) {
        let contours = found.contours
        guard contours.count > 0 else { return }
        let base = Int32(points.count / 2)
        let total = Int(contours.offsets[Int(contours.count)])
        points.append(contentsOf: UnsafeBufferPointer(start: contours.points, count: 2 * total))
        for i in 1...Int(contours.count) { offsets.append(base + contours.offsets[i]) }
    }
}

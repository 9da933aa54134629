import CVBridge

/// Stage 3: the boundaries of dark regions, by OpenCV's findContours; only those whose length could be
/// a marker's perimeter cross the bridge.
public enum Contours {
    /// A closed chain of integer pixel positions.
    public struct Contour: Sendable {
        public let points: [Int32] // x0, y0, x1, y1, ...
        public var count: Int { points.count / 2 }
    }

    public static func find(in binary: GrayImage, minPoints: Int, maxPoints: Int) throws -> [Contour] {
        var found = cvb_contours()
        let status = binary.pixels.withUnsafeBufferPointer {
            cvb_find_contours($0.baseAddress, Int32(binary.width), Int32(binary.height), Int32(binary.width),
                              Int32(minPoints), Int32(maxPoints), &found)
        }
        defer { cvb_contours_release(&found) }
        guard status >= 0 else { throw MarkerKitError.internalFailure(String(cString: cvb_last_error())) }
        return (0..<Int(found.count)).map { i in
            let start = Int(found.offsets[i]), end = Int(found.offsets[i + 1])
            return Contour(points: Array(UnsafeBufferPointer(start: found.points + 2 * start, count: 2 * (end - start))))
        }
    }
}

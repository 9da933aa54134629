import CVBridge

/// OpenCV's own aruco detector (`cv::aruco::detectMarkers`, DICT_ARUCO_ORIGINAL, default parameters):
/// the independent reference MarkerKit's output is checked and compared against.
public struct OpenCVArucoDetector: Sendable {
    public enum CornerRefinement: Sendable { case none, subpixel }

    public var cornerRefinement: CornerRefinement
    /// OpenCV's ArUco 3 mode (useAruco3Detection): thresholds a reduced image.
    public var aruco3: Bool

    public init(cornerRefinement: CornerRefinement = .none, aruco3: Bool = false) {
        self.cornerRefinement = cornerRefinement
        self.aruco3 = aruco3
    }

    public func detect(in image: GrayImage) throws -> [MarkerDetection] {
        var capacity = 64
        while true {
            var found = [cvb_marker](repeating: cvb_marker(), count: capacity)
            let count = image.pixels.withUnsafeBufferPointer { pixels in
                cvb_aruco_detect(pixels.baseAddress, Int32(image.width), Int32(image.height), Int32(image.width),
                                 aruco3 ? 2 : (cornerRefinement == .subpixel ? 1 : 0), &found, Int32(capacity))
            }
            guard count >= 0 else { throw MarkerKitError.internalFailure(String(cString: cvb_last_error())) }
            if Int(count) > capacity { capacity = Int(count); continue }
            return found.prefix(Int(count)).map { marker in
                let c = marker.corners
                return MarkerDetection(id: Int(marker.id), corners: [
                    Point2(x: c.0, y: c.1), Point2(x: c.2, y: c.3), Point2(x: c.4, y: c.5), Point2(x: c.6, y: c.7),
                ])
            }
        }
    }

    /// OpenCV's DICT_ARUCO_ORIGINAL data bits for `id`, for cross-checking MarkerKit's dictionary.
    public static func dictionaryBits(for id: Int) throws -> MarkerBits {
        var cells = [UInt8](repeating: 0, count: 25)
        guard cvb_aruco_original_bits(Int32(id), &cells) >= 0 else {
            throw MarkerKitError.internalFailure(String(cString: cvb_last_error()))
        }
        return MarkerBits(cells: cells.map { $0 != 0 })
    }

    /// How many IDs OpenCV's DICT_ARUCO_ORIGINAL holds.
    public static var dictionaryCount: Int { Int(cvb_aruco_original_count()) }
}

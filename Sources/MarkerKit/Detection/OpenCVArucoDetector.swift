import CVBridge

/// OpenCV's own aruco detector (`cv::aruco::detectMarkers`, default parameters) with one of OpenCV's
/// predefined dictionaries: the independent reference MarkerKit's output is checked and compared against.
public struct OpenCVArucoDetector: Sendable {
    public enum CornerRefinement: Sendable { case none, subpixel }

    public var cornerRefinement: CornerRefinement
    /// OpenCV's ArUco 3 mode (useAruco3Detection): thresholds a reduced image.
    public var aruco3: Bool
    public var dictionary: OpenCVDictionary

    public init(cornerRefinement: CornerRefinement = .none, aruco3: Bool = false, dictionary: OpenCVDictionary = .arucoOriginal) {
        self.cornerRefinement = cornerRefinement
        self.aruco3 = aruco3
        self.dictionary = dictionary
    }

    public init(cornerRefinement: CornerRefinement = .none, aruco3: Bool = false, dictionary: MarkerDictionary) {
        self.init(cornerRefinement: cornerRefinement, aruco3: aruco3, dictionary: OpenCVDictionary(dictionary.id))
    }

    public func detect(in image: GrayImage) throws -> [MarkerDetection] {
        try image.pixels.withUnsafeBufferPointer { pixels in
            try detect(gray: pixels.baseAddress!, width: image.width, height: image.height, stride: image.width)
        }
    }

    /// The markers in gray pixels held elsewhere (rows `stride` bytes apart), read in place.
    func detect(gray: UnsafePointer<UInt8>, width: Int, height: Int, stride: Int) throws -> [MarkerDetection] {
        let mode = aruco3 ? CVB_ARUCO_3 : (cornerRefinement == .subpixel ? CVB_ARUCO_SUBPIXEL : CVB_ARUCO_DEFAULT)
        var capacity = 64
        while true {
            var found = [cvb_marker](repeating: cvb_marker(), count: capacity)
            let count = cvb_aruco_detect(gray, Int32(width), Int32(height), Int32(stride), dictionary.rawValue, mode, &found, Int32(capacity))
            try Bridge.check(count)
            if Int(count) > capacity { capacity = Int(count); continue }
            return found.prefix(Int(count)).map { marker in
                let c = marker.corners
                return MarkerDetection(id: Int(marker.id), corners: [
                    Point2(x: c.0, y: c.1), Point2(x: c.2, y: c.3), Point2(x: c.4, y: c.5), Point2(x: c.6, y: c.7),
                ])
            }
        }
    }
}

/// One of OpenCV's predefined aruco dictionaries, by OpenCV's own number (`PREDEFINED_DICTIONARY_NAME`):
/// any of the 21, MarkerKit's `MarkerDictionary.Name`s.
public struct OpenCVDictionary: Sendable, Hashable {
    public let rawValue: Int32

    public init(rawValue: Int32) { self.rawValue = rawValue }

    public init(_ name: MarkerDictionary.Name) { rawValue = name.openCVNumber }

    public static let arucoOriginal = OpenCVDictionary(rawValue: 16)
    public static let dict4x4_1000 = OpenCVDictionary(rawValue: 3)
    public static let dict6x6_1000 = OpenCVDictionary(rawValue: 11)

    /// How many IDs, the marker side in cells and OpenCV's maxCorrectionBits.
    public func info() throws -> (count: Int, markerSize: Int, maxCorrectionBits: Int) {
        var size: Int32 = 0, correction: Int32 = 0
        let count = cvb_aruco_dictionary_info(rawValue, &size, &correction)
        try Bridge.check(count)
        return (Int(count), Int(size), Int(correction))
    }

    /// The data cells of `id`, row-major, true = white (markerSize^2 of them).
    public func cells(for id: Int) throws -> [Bool] {
        var cells = [UInt8](repeating: 0, count: 64)
        try Bridge.check(cvb_aruco_dictionary_bits(rawValue, Int32(id), &cells, Int32(cells.count)))
        let size = try info().markerSize
        return cells.prefix(size * size).map { $0 != 0 }
    }

    /// The data bits of `id`, for cross-checking MarkerKit's codes.
    public func bits(for id: Int) throws -> MarkerBits {
        MarkerBits(cells: try cells(for: id))
    }
}

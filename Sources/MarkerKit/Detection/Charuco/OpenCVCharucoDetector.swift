import CVBridge

/// OpenCV 4.6's ChArUco pipeline (`detectMarkers`, then `interpolateCornersCharuco`): the reference
/// MarkerKit's board corners are compared with. Without a camera the corners come from local homographies
/// of the markers, with one from the board pose projected through it; either way refined by cornerSubPix.
public struct OpenCVCharucoDetector: Sendable {
    public let board: CharucoBoard
    /// A pinhole camera for OpenCV's pose-based mode, or nil.
    public var camera: CameraCalibration?

    public init(board: CharucoBoard, camera: CameraCalibration? = nil) throws {
        guard !board.legacy else {
            throw MarkerKitError.invalidArgument("OpenCV 4.6 draws ChArUco boards only in its current layout, not the legacy one")
        }
        if let camera, camera.model == .fisheye {
            throw MarkerKitError.invalidArgument("OpenCV's ChArUco interpolation takes a pinhole camera, not a fisheye one")
        }
        self.board = board
        self.camera = camera
    }

    public func detect(in image: GrayImage) throws -> [CharucoDetection.Corner] {
        var capacity = board.corners.count
        var ids = [Int32](repeating: 0, count: capacity), xy = [Double](repeating: 0, count: 2 * capacity)
        let found = image.pixels.withUnsafeBufferPointer { pixels in
            if let camera {
                return cvb_charuco_interpolate(pixels.baseAddress, Int32(image.width), Int32(image.height), Int32(image.width),
                                               Int32(board.squaresX), Int32(board.squaresY), board.square.millimetres,
                                               board.marker.millimetres, OpenCVDictionary(board.dictionary.id).rawValue,
                                               camera.cameraMatrix, camera.distortion, Int32(camera.distortion.count), &ids, &xy, Int32(capacity))
            }
            return cvb_charuco_interpolate(pixels.baseAddress, Int32(image.width), Int32(image.height), Int32(image.width),
                                           Int32(board.squaresX), Int32(board.squaresY), board.square.millimetres,
                                           board.marker.millimetres, OpenCVDictionary(board.dictionary.id).rawValue,
                                           nil, nil, 0, &ids, &xy, Int32(capacity))
        }
        try Bridge.check(found)
        capacity = min(Int(found), capacity)
        return (0..<capacity).map { CharucoDetection.Corner(id: Int(ids[$0]), point: Point2(x: xy[2 * $0], y: xy[2 * $0 + 1])) }
            .sorted { $0.id < $1.id }
    }
}

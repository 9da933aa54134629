import Foundation

/// The state a camera was in when its views were taken: which device (by its stable name where it has
/// one), the stream (pixel format, size, rate) and the controls that move the optics (autofocus, focus,
/// zoom). A calibration holds only for this state: another focus or zoom is another lens.
public struct CameraState: Codable, Sendable, Equatable {
    /// The path the camera was opened by (`/dev/video0`).
    public var device: String
    /// `/dev/v4l/by-id/...`, which names the same camera whichever /dev/videoN it gets.
    public var stablePath: String?
    public var card: String
    public var driver: String
    public var busInfo: String
    /// FourCC as V4L2 names it: YUYV, MJPG, GREY.
    public var pixelFormat: String
    public var width: Int
    public var height: Int
    /// Frames per second the driver set, when it says.
    public var fps: Double?
    /// The optics' controls as v4l2-ctl names them (focus_automatic_continuous, focus_absolute,
    /// zoom_absolute, ...) with their values; only those the camera has.
    public var optics: [String: Int64]
    /// The lowest and highest focus_absolute read when views were kept; they differ when the focus
    /// moved during capture (autofocus left on).
    public var focusRange: [Int64]?

    public init(device: String, stablePath: String? = nil, card: String, driver: String, busInfo: String, pixelFormat: String,
                width: Int, height: Int, fps: Double? = nil, optics: [String: Int64] = [:], focusRange: [Int64]? = nil) {
        self.device = device
        self.stablePath = stablePath
        self.card = card
        self.driver = driver
        self.busInfo = busInfo
        self.pixelFormat = pixelFormat
        self.width = width
        self.height = height
        self.fps = fps
        self.optics = optics
        self.focusRange = focusRange
    }

    /// The names of the optics' controls recorded, in this order.
    public static let opticsControls = ["focus_automatic_continuous", "focus_auto", "focus_absolute", "zoom_absolute", "iris_absolute"]

    public var autofocus: Bool? { (optics["focus_automatic_continuous"] ?? optics["focus_auto"]).map { $0 != 0 } }
    public var focus: Int64? { optics["focus_absolute"] }
    public var zoom: Int64? { optics["zoom_absolute"] }

    /// Whether the focus was seen at more than one value while views were kept.
    public var focusMoved: Bool { focusRange.map { $0.count == 2 && $0[0] != $0[1] } ?? false }

    /// One line for `calibrations show`: the camera, its stream and its optics.
    public var summary: String {
        var parts = ["\(card.isEmpty ? device : card) (\(driver)\(busInfo.isEmpty ? "" : ", \(busInfo)"))",
                     "\(pixelFormat) \(width)x\(height)" + (fps.map { String(format: " @%g fps", $0) } ?? "")]
        var optic: [String] = []
        if let autofocus { optic.append("autofocus \(autofocus ? "on" : "off")") }
        if let focus { optic.append("focus \(focus)") }
        if let zoom { optic.append("zoom \(zoom)") }
        if focusMoved, let range = focusRange { optic.append("focus moved \(range[0])-\(range[1]) during capture") }
        if !optic.isEmpty { parts.append(optic.joined(separator: ", ")) }
        return parts.joined(separator: "; ")
    }
}

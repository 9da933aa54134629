import BridgeStatus
import CVBridge
import Foundation

/// A live preview in a window when a display is present (OpenCV's highgui, loaded on first use).
/// Without a display it stays silent: the terminal status line stands in for it.
public final class PreviewWindow {
    public let title: String
    public private(set) var isAvailable: Bool

    public init(title: String) {
        self.title = title
        let env = ProcessInfo.processInfo.environment
        isAvailable = !(env["DISPLAY"] ?? "").isEmpty || !(env["WAYLAND_DISPLAY"] ?? "").isEmpty
    }

    /// Shows a frame; returns the key pressed, if any. After the first failure the window is off.
    @discardableResult
    public func show(_ frame: Frame) -> Character? {
        guard isAvailable else { return nil }
        let picture = frame.format == .bgr8 ? frame
            : Frame(width: frame.width, height: frame.height, stride: 3 * frame.width, format: .bgr8,
                    bytes: (try? Grayscale.image(from: frame).pixels.flatMap { [$0, $0, $0] }) ?? [])
        let key = picture.bytes.withUnsafeBufferPointer {
            cvb_preview_show(title, $0.baseAddress, Int32(picture.width), Int32(picture.height), Int32(picture.stride), 1)
        }
        if key == BRIDGE_ERR_IO.rawValue || key < -1 {
            isAvailable = false
            return nil
        }
        return key >= 0 ? Character(UnicodeScalar(UInt8(truncatingIfNeeded: key))) : nil
    }
}

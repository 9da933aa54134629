import Foundation
import MarkerKit

/// The status line of `capture`: the assistant's coverage bars and verdict, or the key prompt; none on a timer.
enum CaptureStatus {
    static func line(_ update: CaptureSession.Update, trigger: CaptureSession.Trigger, feed: FrameFeed) -> String? {
        let fps = String(format: "%.1f fps", feed.framesPerSecond)
        switch trigger {
        case .assistant:
            let bars = zip(["X", "Y", "Size", "Skew", "Corners"], update.coverage ?? []).map { name, value in
                "\(name) [" + String(repeating: "#", count: Int(value * 10)) + String(repeating: "-", count: 10 - Int(value * 10)) + "]"
            }.joined(separator: " ")
            let views = update.saved + (update.saving ? 1 : 0)
            return "\(bars) views \(views)/\(update.count) \(update.verdict.map { "\($0)" } ?? "") \(fps) dropped \(feed.dropped)"
        case .every:
            return nil
        case .onRequest:
            return "frames \(feed.processed), saved \(update.saved)/\(update.count): space saves, q quits \(fps)"
        }
    }
}

import Foundation
import MarkerKit

/// The status line of `capture`: the assistant's coverage bars and verdict, or the key prompt; none on a timer.
enum CaptureStatus {
    /// After a run: how sure a calibration from the saved views is, and where to hold the board next.
    static func uncertaintyLine(_ u: CaptureAssistant.UncertaintyState, target: Double?) -> String {
        let done = target.map { u.worst.sigma < $0 } ?? false
        let verdict = target.map { done ? String(format: ": below --until-sigma %.2f px", $0) : String(format: ", not yet below --until-sigma %.2f px", $0) } ?? ""
        return String(format: "projection uncertainty from the %d views: worst %.3f px at (%.0f, %.0f), the %@ of the image (outer 10%% left out), median %.3f px%@%@",
                      u.views, u.worst.sigma, u.worst.x, u.worst.y, u.place, u.median, verdict, done ? "" : "; hold the board there next")
    }

    static func line(_ update: CaptureSession.Update, trigger: CaptureSession.Trigger, feed: FrameFeed) -> String? {
        let fps = String(format: "%.1f fps", feed.framesPerSecond)
        switch trigger {
        case .assistant:
            let bars = zip(["X", "Y", "Size", "Skew", "Corners"], update.coverage ?? []).map { name, value in
                "\(name) [" + String(repeating: "#", count: Int(value * 10)) + String(repeating: "-", count: 10 - Int(value * 10)) + "]"
            }.joined(separator: " ")
            let views = update.saved + (update.saving ? 1 : 0)
            let sigma = update.uncertainty.map { u in
                String(format: " worst %.2f px %@", u.worst.sigma, u.place)
            } ?? ""
            return "\(bars)\(sigma) views \(views)/\(update.count) \(update.verdict.map { "\($0)" } ?? "") \(fps) dropped \(feed.dropped)"
        case .every:
            return nil
        case .onRequest:
            return "frames \(feed.processed), saved \(update.saved)/\(update.count): space saves, q quits \(fps)"
        }
    }
}

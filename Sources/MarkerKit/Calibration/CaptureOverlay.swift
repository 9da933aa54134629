import Foundation

/// What the capture assistant draws on the live picture, the same in the terminal's preview window
/// (`markerkit capture`) and in the browser (`markerkit serve`): the board's corners found (green on a
/// frame about to be kept, orange otherwise) and where a calibration from the views kept so far is least
/// sure.
public enum CaptureOverlay {
    public static func draw(on frame: inout Frame, corners: [Point2]?, saving: Bool, uncertainty: CaptureAssistant.UncertaintyState?) throws {
        let annotator = MarkerAnnotator()
        if let corners { try annotator.drawPoints(&frame, corners, color: saving ? (0, 220, 0) : (0, 180, 255)) }
        if let worst = uncertainty?.worst {
            try annotator.drawTarget(&frame, at: Point2(x: worst.x, y: worst.y), label: String(format: "hold the board here: %.2f px", worst.sigma))
        }
    }

    /// The overlay of one update of a `CaptureSession`.
    public static func draw(on frame: inout Frame, _ update: CaptureSession.Update) throws {
        try draw(on: &frame, corners: update.corners, saving: update.saving, uncertainty: update.uncertainty)
    }
}

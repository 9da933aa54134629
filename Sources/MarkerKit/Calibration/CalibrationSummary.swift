import Foundation

/// A calibration as text for people: parameters with their standard deviations, quality, provenance.
public enum CalibrationSummary {
    /// "5x7 squares (4x6 inner corners)": a board described both ways, from its inner corners.
    public static func boardSize(columns: Int, rows: Int) -> String {
        columns > 0 && rows > 0 ? "\(columns + 1)x\(rows + 1) squares (\(columns)x\(rows) inner corners)" : "unknown size"
    }

    public static func lines(for c: CameraCalibration) -> [String] {
        var lines: [String] = []
        let size = c.imageWidth > 0 ? "\(c.imageWidth)x\(c.imageHeight)" : "unknown size"
        lines.append("camera\(c.name == CalibrationStore.defaultName ? "" : " " + c.name): model \(c.model.rawValue), image \(size)")
        let sd = c.provenance?.stdDeviations ?? []
        func row(_ name: String, _ value: Double, _ index: Int, _ format: String) -> String {
            let value = String(format: format, value)
            let deviation = index < sd.count && sd[index] > 0 ? " ± " + String(format: format, sd[index]) : ""
            return "  \(name.padding(toLength: 3, withPad: " ", startingAt: 0)) \(value)\(deviation)"
        }
        if let p = c.provenance {
            lines.append(String(format: "  RMS reprojection error %.4f px over %d views (board of %@, %@ %@ squares; corners by %@)",
                                p.rms, p.views, boardSize(columns: p.boardColumns, rows: p.boardRows), Length.format(p.squareSize), p.units, p.detector))
        }
        lines.append(row("fx", c.fx, 0, "%.3f") + " px")
        lines.append(row("fy", c.fy, 1, "%.3f") + " px")
        lines.append(row("cx", c.cx, 2, "%.3f") + " px")
        lines.append(row("cy", c.cy, 3, "%.3f") + " px")
        for (i, name) in c.model.coefficientNames.enumerated() {
            lines.append(row(name, c.distortion[i], 4 + i, "%.6f"))
        }
        if let map = try? UncertaintyMap.summary(ProjectionUncertainty(c)) {
            lines.append(String(format: "  projection uncertainty at infinity: median %.3f px, worst %.3f px at (%.0f, %.0f) (calibrations uncertainty %@)",
                                map.median, map.worst.sigma, map.worst.x, map.worst.y, c.name))
        }
        if let verdict = CalibrationVerdict(c) { lines += verdict.lines.map { "  " + $0 } }
        if let camera = c.camera {
            lines.append("  taken with \(camera.summary)" + (camera.stablePath.map { " (\($0))" } ?? ""))
            if camera.focusMoved, let range = camera.focusRange {
                lines.append("  warning: the focus moved from \(range[0]) to \(range[1]) while the views were taken: the calibration mixes focus states (capture again with the focus held)")
            }
        }
        if let p = c.provenance, !p.calibrationTime.isEmpty { lines.append("  calibrated \(p.calibrationTime) by \(p.generator)") }
        return lines
    }
}

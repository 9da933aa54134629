import Foundation

/// A rig as text for people: each camera, each camera's pose relative to the first with its standard
/// deviations, the errors per pair, and the rectified pair's focal length, baseline and disparity at 1 m.
public enum RigSummary {
    public static func lines(for rig: CameraRig) -> [String] {
        let names = rig.cameras.map(\.name), unit = rig.units.isEmpty ? "" : " " + rig.units
        let solved = rig.extrinsicCovariance.contains { $0 != 0 }
        let source = solved ? counted(rig.views, "view") : "imported, no uncertainty"
        var lines = ["rig \(rig.name): \(rig.cameras.count) cameras (\(names.joined(separator: ", "))), \(source), lengths in\(unit.isEmpty ? " board units" : unit)"]
        for (c, camera) in rig.cameras.enumerated() {
            // A rig's camera is not stored alone: its uncertainty map is one export away, not one command.
            let hint = " (calibrations uncertainty \(camera.name))"
            lines += CalibrationSummary.lines(for: camera).filter { !$0.contains("calibrated ") }
                .map { "  " + ($0.hasSuffix(hint) ? String($0.dropLast(hint.count)) : $0) }
            guard c > 0 else { continue }
            let s = rig.poseSigma(of: c), t = rig.extrinsics[c].tvec, centre = rig.centre(of: c)
            lines.append(solved
                ? String(format: "    pose from %@: baseline %.4f ± %.4f%@ (direction ± %.4f°), rotation %.4f° ± %.4f°", names[0], rig.baseline(of: c), s.length, unit,
                         s.direction, rig.rotationAngle(of: c), s.rotation)
                : String(format: "    pose from %@: baseline %.4f%@, rotation %.4f°", names[0], rig.baseline(of: c), unit, rig.rotationAngle(of: c)))
            lines.append(String(format: "    T [%.4f, %.4f, %.4f]%@ (x_%d = R x_0 + T); optical centre at [%.4f, %.4f, %.4f]%@ in %@'s frame", t[0], t[1], t[2], unit, c,
                                centre[0], centre[1], centre[2], unit, names[0]))
        }
        for pair in rig.pairErrors {
            lines.append(String(format: "  pair %@ + %@: RMS %.4f px over %@ both saw", names[pair.first], names[pair.second], pair.rms, counted(pair.views, "view")))
        }
        if solved { lines.append(String(format: "  joint solve: corner noise %.4f px", rig.noise)) }
        for c in 1..<rig.cameras.count {
            do {
                let r = try StereoRectification(rig: rig, first: 0, second: c)
                let distance = rig.units == "mm" ? 1000.0 : rig.units == "m" ? 1 : rig.units == "in" ? 1000 / 25.4 : 0
                let disparity = distance > 0 ? String(format: ", disparity of a point at 1 m %.2f px", r.disparity(at: distance)) : ""
                lines.append(String(format: "  rectified %@ + %@: focal %.3f px, baseline %.4f%@%@", names[0], names[c], r.focal, r.baseline, unit, disparity))
            } catch let error as MarkerKitError {
                lines.append("  no rectification of \(names[0]) + \(names[c]): \(error.description)")
            } catch {}
        }
        if !rig.calibrationTime.isEmpty { lines.append("  calibrated \(rig.calibrationTime)") }
        return lines
    }
}

import Foundation

/// The triangulation uncertainty of a rig's pairs (camera 0 with each other camera) at several distances,
/// as a table for people and as JSON.
public struct RigUncertaintyTable: Codable, Sendable {
    public struct Row: Codable, Sendable {
        public let first: String
        public let second: String
        public let distance: Double
        public let calibrationRange: Double
        public let calibrationAcross: Double
        public let observationRange: Double
        public let observationAcross: Double
        public let range: Double
        public let across: Double
    }

    public let rig: String
    public let units: String
    /// One corner coordinate's noise (px) the observation columns assume.
    public let noise: Double
    public let rows: [Row]

    /// `distances` in the rig's units; the default is 0.5, 1, 2 and 5 m in them (or 500-5000 units when
    /// the units are not lengths MarkerKit knows).
    public init(_ rig: CameraRig, distances: [Double]? = nil) throws {
        let perMetre = Length.Unit(rawValue: rig.units).map { 1000 / $0.millimetres } ?? 1000
        let chosen = distances ?? [0.5, 1, 2, 5].map { $0 * perMetre }
        var rows: [Row] = []
        for c in 1..<rig.cameras.count {
            for d in chosen {
                let t = try TriangulationUncertainty(rig: rig, first: 0, second: c, distance: d)
                rows.append(Row(first: rig.cameras[0].name, second: rig.cameras[c].name, distance: d, calibrationRange: t.calibration.range,
                                calibrationAcross: t.calibration.lateral, observationRange: t.observation.range, observationAcross: t.observation.lateral,
                                range: t.combined.range, across: t.combined.lateral))
            }
        }
        (self.rig, units, noise, self.rows) = (rig.name, rig.units, rig.noise, rows)
    }

    public var table: String {
        var lines = [String(format: "triangulation uncertainty of rig %@ (1 sigma, %@): a point straight ahead of each pair, as a recalibration with new corner noise moves it (calibration) and as %.3f px noise on its two pixels moves it (observation)",
                            rig, units, noise)]
        lines.append("  pair                 distance    calibration range / across    observation range / across    both range / across")
        for r in rows {
            let pair = "\(r.first) + \(r.second)".padding(toLength: 20, withPad: " ", startingAt: 0)
            lines.append(String(format: "  %@ %9.1f    %10.4f / %-10.4f          %10.4f / %-10.4f          %9.4f / %.4f", pair, r.distance, r.calibrationRange,
                                r.calibrationAcross, r.observationRange, r.observationAcross, r.range, r.across))
        }
        return lines.joined(separator: "\n")
    }
}

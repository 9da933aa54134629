/// What is printed right beside a marker in a sampled scene.
public enum NearbyPrint: String, Codable, Sendable, CaseIterable {
    /// Gray patches, as a colour checker looks to a gray camera.
    case patches
    /// Lines of text.
    case text
    /// A second marker.
    case marker
}

/// One sampled render for `verify markers`: the scene and what was asked of each marker in it, in the
/// order of `SceneTruth.markers(of:)`.
public struct SampledScene: Sendable {
    public struct Marker: Sendable {
        public let truth: SceneTruth.Marker
        /// Angle between the marker's normal and the line of sight to it, degrees.
        public let tiltDegrees: Double
        /// What is printed beside it, if anything.
        public var beside: NearbyPrint? = nil
        /// Paper between its black border and that print, in the marker's cells.
        public var quietZone: Double? = nil
    }

    public let scene: Scene
    public let markers: [Marker]
}

/// Where `verify markers` takes its renders from: a seeded sampler, the same scenes for the same seed.
public protocol SceneSampler {
    mutating func nextScene() throws -> SampledScene
}

extension MarkerSceneSampler: SceneSampler {
    public mutating func nextScene() throws -> SampledScene {
        let sample = try next()
        return SampledScene(scene: sample.scene, markers: [SampledScene.Marker(truth: sample.truth, tiltDegrees: sample.tiltDegrees)])
    }
}

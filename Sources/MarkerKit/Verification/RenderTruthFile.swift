import Foundation

/// `truth.json` beside rendered images: the camera and, per image, every marker's ID, corners and pose.
public struct RenderTruthFile: Codable, Sendable {
    public struct Camera: Codable, Sendable {
        public let name: String
        public let model: String
        public let imageWidth: Int
        public let imageHeight: Int
        public let cameraMatrix: [Double]
        public let distortionCoefficients: [Double]
    }
    public struct Marker: Codable, Sendable {
        public let id: Int
        public let corners: [[Double]]
        public let side: Double
        public let rvec: [Double]
        public let tvec: [Double]
    }
    public struct SceneEntry: Codable, Sendable {
        public let file: String
        public let markers: [Marker]
        public let degradations: Degradations
    }

    public var format = "markerkit-render-truth"
    public var units = "mm"
    public var pixelConvention = "integer coordinates at pixel centres (OpenCV); corners TL, TR, BR, BL of the marker as printed"
    public let camera: Camera
    public var scenes: [SceneEntry]
    public var generator = MarkerKitVersion.generator

    public init(camera c: CameraCalibration, scenes: [SceneEntry]) {
        camera = Camera(name: c.name, model: c.model.rawValue, imageWidth: c.imageWidth, imageHeight: c.imageHeight,
                        cameraMatrix: c.cameraMatrix, distortionCoefficients: c.distortion)
        self.scenes = scenes
    }

    public static func entry(file: String, scene: Scene) throws -> SceneEntry {
        SceneEntry(file: file, markers: try SceneTruth.markers(of: scene).map {
            Marker(id: $0.id, corners: $0.corners.map { [$0.x, $0.y] }, side: $0.side, rvec: $0.pose.rvec, tvec: $0.pose.tvec)
        }, degradations: scene.degradations)
    }

    public func encoded() throws -> Data { try JSONFile.encode(self) }
}

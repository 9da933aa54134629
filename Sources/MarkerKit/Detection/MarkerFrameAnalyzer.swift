/// One frame through detection and pose, as `detect` and `track` both report it: corners in the sensor's
/// pixel coordinates, poses from the calibration, optionally the annotated picture.
public struct MarkerFrameAnalyzer {
    public var detector = MarkerDetector()
    public var poseEstimator: MarkerPoseEstimator?
    /// Display turn/mirror applied before detection; reported corners are mapped back to the sensor.
    public var transform: FrameTransform?
    public var timings: StageTimings?
    /// The detector's buffers, reused frame after frame.
    private let workspace = DetectorWorkspace()

    public init(poseEstimator: MarkerPoseEstimator? = nil, transform: FrameTransform? = nil, collectTimings: Bool = false) {
        self.poseEstimator = poseEstimator
        self.transform = transform
        timings = collectTimings ? StageTimings() : nil
    }

    /// The result, and the annotated frame (as displayed) when `annotate` is set.
    public mutating func analyze(_ sourced: SourcedFrame, annotate: Bool) throws -> (DetectionReport.FrameResult, Frame?) {
        let sensor = sourced.frame
        let shown = transform.map { $0.apply(sensor) } ?? sensor
        let found = try detector.detect(in: shown, workspace: workspace, timings: &timings)
        let markers = found.map { marker in
            guard let transform, !transform.isIdentity else { return marker }
            return MarkerDetection(id: marker.id, corners: marker.corners.map { transform.toSensor($0, width: sensor.width, height: sensor.height) })
        }
        var poses: [Int: MarkerPose] = [:]
        if let estimator = poseEstimator {
            for (index, marker) in markers.enumerated() { poses[index] = try estimator.pose(of: marker) }
        }
        var annotated: Frame?
        if annotate {
            var picture = sensor.format == .bgr8 ? sensor : try Self.bgr(sensor)
            try MarkerAnnotator(poseEstimator: poseEstimator).annotate(&picture, markers: markers, poses: poses)
            annotated = transform.map { $0.apply(picture) } ?? picture
        }
        let result = DetectionReport.FrameResult(
            source: sourced.source, index: sourced.index, width: sensor.width, height: sensor.height,
            markers: markers.enumerated().map { DetectionReport.Marker($0.element, pose: poses[$0.offset]) })
        return (result, annotated)
    }

    static func bgr(_ frame: Frame) throws -> Frame {
        let gray = try Grayscale.image(from: frame)
        return Frame(width: gray.width, height: gray.height, stride: 3 * gray.width, format: .bgr8, bytes: gray.pixels.flatMap { [$0, $0, $0] })
    }
}

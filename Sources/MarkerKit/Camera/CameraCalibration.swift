import CVBridge
import Foundation

/// A camera's intrinsics and how they were obtained: the 3x3 camera matrix, the lens model and its
/// distortion coefficients in OpenCV's order, the image size they hold for, and, for calibrations made
/// here, the quality figures (RMS, per-view errors, standard deviations) and the board used.
public struct CameraCalibration: Sendable, Equatable {
    public enum Model: String, Sendable, CaseIterable {
        /// No distortion.
        case pinhole
        /// k1 k2 p1 p2.
        case opencv4
        /// k1 k2 p1 p2 k3: OpenCV's default, ROS plumb_bob.
        case opencv5
        /// k1 k2 p1 p2 k3 k4 k5 k6: CALIB_RATIONAL_MODEL, ROS rational_polynomial.
        case opencv8
        /// k1 k2 k3 k4 of cv::fisheye (equidistant).
        case fisheye

        public var distortionCount: Int {
            switch self {
            case .pinhole: return 0
            case .opencv4, .fisheye: return 4
            case .opencv5: return 5
            case .opencv8: return 8
            }
        }

        /// The names of the distortion coefficients, in order.
        public var coefficientNames: [String] {
            switch self {
            case .fisheye: return ["k1", "k2", "k3", "k4"]
            default: return Array(["k1", "k2", "p1", "p2", "k3", "k4", "k5", "k6"].prefix(distortionCount))
            }
        }

        /// The models a calibration solves for (`Calibrator`): every one but `pinhole`, which has no
        /// distortion to solve for and which no camera with a lens quite has.
        public static let solvable: [Model] = [.opencv5, .opencv4, .opencv8, .fisheye]

        /// A model a calibration solves for, by name; any other name refused with the list.
        public static func solvable(named name: String) throws -> Model {
            guard let model = Model(rawValue: name.lowercased()), solvable.contains(model) else { throw unsolvable(name) }
            return model
        }

        /// Refuses a model a calibration does not solve for, naming those it does.
        public func requireSolvable() throws {
            guard Self.solvable.contains(self) else { throw Self.unsolvable(rawValue) }
        }

        private static func unsolvable(_ name: String) -> MarkerKitError {
            let names = solvable.map(\.rawValue)
            return .invalidArgument("a calibration solves for the lens models \(names.dropLast().joined(separator: ", ")) or \(names.last!), not '\(name.prefix(40))'")
        }

        /// The pinhole model with this many OpenCV coefficients.
        static func pinholeModel(coefficients: Int) -> Model? {
            switch coefficients {
            case 0: return .pinhole
            case 4: return .opencv4
            case 5: return .opencv5
            case 8: return .opencv8
            default: return nil
            }
        }
    }

    /// Quality figures and provenance, present for calibrations made by `markerkit calibrate`.
    public struct Provenance: Sendable, Equatable {
        public var calibrationTime: String
        public var views: Int
        public var boardColumns: Int
        public var boardRows: Int
        /// Square size in `units`.
        public var squareSize: Double
        public var units: String
        public var flags: Int
        public var rms: Double
        public var perViewErrors: [Double]
        /// fx fy cx cy, then one per distortion coefficient.
        public var stdDeviations: [Double]
        public var generator: String
        public var detector: String
        /// Where the views put the board (calibrations by `markerkit calibrate` since the verdict), for the verdict.
        public var coverage: ViewCoverage?
        /// The cross-validation, when one was run with the calibration.
        public var crossValidation: CrossValidation?

        public init(calibrationTime: String, views: Int, boardColumns: Int, boardRows: Int, squareSize: Double,
                    units: String, flags: Int, rms: Double, perViewErrors: [Double], stdDeviations: [Double],
                    generator: String = MarkerKitVersion.generator, detector: String) {
            self.calibrationTime = calibrationTime
            self.views = views
            self.boardColumns = boardColumns
            self.boardRows = boardRows
            self.squareSize = squareSize
            self.units = units
            self.flags = flags
            self.rms = rms
            self.perViewErrors = perViewErrors
            self.stdDeviations = stdDeviations
            self.generator = generator
            self.detector = detector
        }
    }

    public var name: String
    public var model: Model
    public var cameraMatrix: [Double] // row-major 3x3
    public var distortion: [Double]
    public var imageWidth: Int
    public var imageHeight: Int
    public var provenance: Provenance?
    /// What projection uncertainty needs (calibrations made by `markerkit calibrate`, and files that
    /// carried it).
    public var projectionCovariance: ProjectionCovariance?
    /// The camera and its state when the views were taken (calibrations from `capture` and `serve`).
    public var camera: CameraState?

    /// The largest image side a calibration may be for (a 16K sensor is 15360): larger is a damaged file,
    /// whose sizes would overflow the arithmetic that compares them with a picture's.
    public static let largestSide = 100_000

    /// Checks every number: a calibration that exists is always usable.
    public init(name: String, model: Model, cameraMatrix: [Double], distortion: [Double], imageWidth: Int,
                imageHeight: Int, provenance: Provenance? = nil) throws {
        guard cameraMatrix.count == 9 else { throw MarkerKitError.badInput("the camera matrix needs 9 values, not \(cameraMatrix.count)") }
        guard distortion.count == model.distortionCount else {
            throw MarkerKitError.badInput("the \(model.rawValue) model takes \(model.distortionCount) distortion coefficients, not \(distortion.count)")
        }
        guard (cameraMatrix + distortion).allSatisfy(\.isFinite) else {
            throw MarkerKitError.badInput("the camera matrix or distortion holds NaN or infinite values")
        }
        let fx = cameraMatrix[0], fy = cameraMatrix[4]
        guard fx > 0, fy > 0 else {
            throw MarkerKitError.badInput("focal lengths must be positive (fx \(fx), fy \(fy))")
        }
        guard cameraMatrix[3] == 0, cameraMatrix[6] == 0, cameraMatrix[7] == 0, cameraMatrix[8] == 1 else {
            throw MarkerKitError.badInput("the camera matrix must have the form [fx s cx; 0 fy cy; 0 0 1]")
        }
        guard imageWidth >= 0, imageHeight >= 0 else { throw MarkerKitError.badInput("negative image size") }
        guard imageWidth <= Self.largestSide, imageHeight <= Self.largestSide else {
            throw MarkerKitError.badInput("image size \(imageWidth)x\(imageHeight) is outside 0-\(Self.largestSide) each")
        }
        self.name = name
        self.model = model
        self.cameraMatrix = cameraMatrix
        self.distortion = distortion
        self.imageWidth = imageWidth
        self.imageHeight = imageHeight
        self.provenance = provenance
    }

    /// A pinhole calibration from OpenCV coefficients (4, 5, 8; 12 and 14 are refused by name).
    public init(name: String, cameraMatrix: [Double], distortion: [Double], imageWidth: Int, imageHeight: Int) throws {
        guard let model = Model.pinholeModel(coefficients: distortion.count) else {
            throw MarkerKitError.badInput("\(distortion.count) distortion coefficients: MarkerKit takes 0, 4, 5 or 8 (thin prism and tilted models are not supported)")
        }
        try self.init(name: name, model: model, cameraMatrix: cameraMatrix, distortion: distortion,
                      imageWidth: imageWidth, imageHeight: imageHeight)
    }

    public var fx: Double { cameraMatrix[0] }
    public var fy: Double { cameraMatrix[4] }
    public var cx: Double { cameraMatrix[2] }
    public var cy: Double { cameraMatrix[5] }
    public var skew: Double { cameraMatrix[1] }
}

extension CameraCalibration {
    /// The model as the bridge names it (pinhole models share one).
    var bridgeModel: cvb_model { model == .fisheye ? CVB_MODEL_FISHEYE : CVB_MODEL_OPENCV5 }

    /// cv::projectPoints (or its fisheye twin) of points seen from `pose` (target frame to camera).
    public func project(_ points: [(Double, Double, Double)], pose: Pose3D) throws -> [Point2] {
        let object = points.flatMap { [$0.0, $0.1, $0.2] }
        var image = [Double](repeating: 0, count: 2 * points.count)
        try Bridge.check(cvb_project_model(object, Int32(points.count), pose.rvec, pose.tvec, cameraMatrix, distortion,
                                           Int32(distortion.count), bridgeModel, &image))
        return (0..<points.count).map { Point2(x: image[2 * $0], y: image[2 * $0 + 1]) }
    }
}

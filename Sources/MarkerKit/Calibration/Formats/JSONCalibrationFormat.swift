import Foundation

/// MarkerKit's JSON calibration file: every field of `CameraCalibration`, lengths in `units`.
enum JSONCalibrationFormat {
    struct File: Codable {
        struct Quality: Codable {
            var calibrationTime: String
            var views: Int
            var boardColumns: Int
            var boardRows: Int
            var squareSize: Double
            var units: String
            var flags: Int
            var rms: Double
            var perViewErrors: [Double]
            var stdDeviations: [Double]
            var generator: String
            var detector: String
            var coverage: ViewCoverage?
            var crossValidation: CrossValidation?
        }

        var format = "markerkit-calibration"
        var formatVersion = 1
        var cameraName: String
        var model: String
        var imageWidth: Int
        var imageHeight: Int
        var cameraMatrix: [Double]
        var distortionCoefficients: [Double]
        var quality: Quality?
        /// `ProjectionCovariance`: the matrix row-major.
        struct Covariance: Codable {
            var matrix: [Double]
            var noise: Double
            var views: Int
        }
        var projectionCovariance: Covariance?
        /// The camera and its state when the views were taken.
        var camera: CameraState?
        var generator = MarkerKitVersion.generator
    }

    static func encode(_ c: CameraCalibration) throws -> Data {
        let quality = c.provenance.map {
            File.Quality(calibrationTime: $0.calibrationTime, views: $0.views, boardColumns: $0.boardColumns,
                         boardRows: $0.boardRows, squareSize: $0.squareSize, units: $0.units, flags: $0.flags, rms: $0.rms,
                         perViewErrors: $0.perViewErrors, stdDeviations: $0.stdDeviations, generator: $0.generator,
                         detector: $0.detector, coverage: $0.coverage, crossValidation: $0.crossValidation)
        }
        var file = File(cameraName: c.name, model: c.model.rawValue, imageWidth: c.imageWidth, imageHeight: c.imageHeight,
                        cameraMatrix: c.cameraMatrix, distortionCoefficients: c.distortion, quality: quality)
        file.projectionCovariance = c.projectionCovariance.map { File.Covariance(matrix: $0.matrix, noise: $0.noise, views: $0.views) }
        file.camera = c.camera
        return try JSONFile.encode(file)
    }

    static func decode(_ data: Data, name: String) throws -> CameraCalibration {
        let file: File
        do {
            file = try JSONFile.decode(File.self, from: data)
        } catch {
            throw MarkerKitError.badInput("not a markerkit-calibration JSON file")
        }
        guard file.format == "markerkit-calibration" else { throw MarkerKitError.badInput("format is '\(file.format)', not markerkit-calibration") }
        guard let model = CameraCalibration.Model(rawValue: file.model) else { throw MarkerKitError.badInput("unknown model '\(file.model)'") }
        let provenance = file.quality.map {
            var p = CameraCalibration.Provenance(calibrationTime: $0.calibrationTime, views: $0.views, boardColumns: $0.boardColumns,
                                                 boardRows: $0.boardRows, squareSize: $0.squareSize, units: $0.units, flags: $0.flags,
                                                 rms: $0.rms, perViewErrors: $0.perViewErrors, stdDeviations: $0.stdDeviations,
                                                 generator: $0.generator, detector: $0.detector)
            (p.coverage, p.crossValidation) = ($0.coverage, $0.crossValidation)
            return p
        }
        var calibration = try CameraCalibration(name: file.cameraName, model: model, cameraMatrix: file.cameraMatrix,
                                                distortion: file.distortionCoefficients, imageWidth: file.imageWidth,
                                                imageHeight: file.imageHeight, provenance: provenance)
        calibration.projectionCovariance = try file.projectionCovariance.map {
            try ProjectionCovariance(matrix: $0.matrix, noise: $0.noise, views: $0.views, model: model)
        }
        calibration.camera = file.camera
        return calibration
    }
}

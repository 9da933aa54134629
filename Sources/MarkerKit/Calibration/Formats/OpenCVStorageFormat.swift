import CVBridge
import Foundation
import Yams

/// OpenCV FileStorage YAML and XML with the keys of OpenCV's calibration sample (calibration_time,
/// nframes, image_width, image_height, board_width, board_height, square_size, flags, camera_matrix,
/// distortion_coefficients, avg_reprojection_error, per_view_reprojection_errors), plus
/// std_deviations_intrinsics, units, camera_name, model, detector and generator. Written and read by
/// cv::FileStorage itself, so OpenCV and cv2 read these files as they are.
enum OpenCVStorageFormat {
    static func encode(_ c: CameraCalibration, xml: Bool) throws -> Data {
        var storage: OpaquePointer?
        try check(cvb_storage_open_write(xml ? CVB_STORAGE_XML : CVB_STORAGE_YAML, &storage))
        defer { cvb_storage_close(storage) }
        try check(cvb_storage_write_comment(storage, "Camera calibration by \(MarkerKitVersion.generator). Lengths in the units below; pixels otherwise."))
        try write(c, to: storage)
        var text = cvb_image()
        try check(cvb_storage_finish(storage, &text))
        defer { cvb_image_release(&text) }
        return Data(bytes: text.data, count: Int(text.width))
    }

    /// A calibration's keys into an open storage (under the storage's key prefix, if any).
    static func write(_ c: CameraCalibration, to storage: OpaquePointer?) throws {
        if let p = c.provenance {
            try check(cvb_storage_write_string(storage, "calibration_time", p.calibrationTime))
            try check(cvb_storage_write_int(storage, "nframes", try int32(p.views, "nframes")))
        }
        try check(cvb_storage_write_int(storage, "image_width", try int32(c.imageWidth, "image_width")))
        try check(cvb_storage_write_int(storage, "image_height", try int32(c.imageHeight, "image_height")))
        if let p = c.provenance {
            try check(cvb_storage_write_int(storage, "board_width", try int32(p.boardColumns, "board_width")))
            try check(cvb_storage_write_int(storage, "board_height", try int32(p.boardRows, "board_height")))
            try check(cvb_storage_write_real(storage, "square_size", p.squareSize))
            try check(cvb_storage_write_string(storage, "units", p.units))
            try check(cvb_storage_write_int(storage, "flags", try int32(p.flags, "flags")))
        }
        try check(cvb_storage_write_matrix(storage, "camera_matrix", c.cameraMatrix, 3, 3))
        if !c.distortion.isEmpty {
            try check(cvb_storage_write_matrix(storage, "distortion_coefficients", c.distortion, Int32(c.distortion.count), 1))
        }
        if let p = c.provenance {
            try check(cvb_storage_write_real(storage, "avg_reprojection_error", p.rms))
            if !p.perViewErrors.isEmpty {
                try check(cvb_storage_write_matrix(storage, "per_view_reprojection_errors", p.perViewErrors, Int32(p.perViewErrors.count), 1))
            }
            if !p.stdDeviations.isEmpty {
                try check(cvb_storage_write_matrix(storage, "std_deviations_intrinsics", p.stdDeviations, Int32(p.stdDeviations.count), 1))
            }
            if let v = p.coverage { try writeCoverage(v, to: storage) }
            if let x = p.crossValidation { try writeCrossValidation(x, to: storage) }
        }
        if let u = c.projectionCovariance {
            let size = Int32(ProjectionCovariance.size(for: c.model))
            try check(cvb_storage_write_matrix(storage, "projection_covariance", u.matrix, size, size))
            try check(cvb_storage_write_real(storage, "observation_noise", u.noise))
            try check(cvb_storage_write_int(storage, "covariance_views", try int32(u.views, "covariance_views")))
        }
        try check(cvb_storage_write_string(storage, "camera_name", c.name))
        try check(cvb_storage_write_string(storage, "model", c.model.rawValue))
        if let camera = c.camera { try writeCamera(camera, to: storage) }
        if let p = c.provenance {
            try check(cvb_storage_write_string(storage, "detector", p.detector))
            try check(cvb_storage_write_string(storage, "generator", p.generator))
        } else {
            try check(cvb_storage_write_string(storage, "generator", MarkerKitVersion.generator))
        }
    }

    static func decode(_ data: Data, name: String) throws -> CameraCalibration {
        let storage = try open(data)
        defer { cvb_storage_close(storage) }
        return try read(Reader(storage: storage), name: name)
    }

    /// The text checked and opened for reading; the caller closes it.
    static func open(_ data: Data) throws -> OpaquePointer? {
        var storage: OpaquePointer?
        // OpenCV reads a C string: a NUL byte would end the text early, so OpenCV would read another file.
        guard !data.contains(0) else { throw MarkerKitError.badInput("holds NUL bytes, so it is not a text file") }
        let text = String(decoding: data, as: UTF8.self)
        if text.drop(while: \.isWhitespace).hasPrefix("<") {
            guard WellFormedXML.check(data) else { throw MarkerKitError.badInput("not well-formed XML") }
        } else {
            try checkWellFormedYAML(text)
        }
        guard cvb_storage_open_read(text, &storage) >= 0, storage != nil else {
            throw MarkerKitError.badInput("not OpenCV FileStorage YAML/XML")
        }
        return storage
    }

    /// A calibration from an open storage's keys (under its key prefix, if any).
    static func read(_ reader: Reader, name: String) throws -> CameraCalibration {
        guard let (k, rows, cols) = try reader.matrix("camera_matrix"), rows == 3, cols == 3 else {
            throw MarkerKitError.badInput("no 3x3 camera_matrix")
        }
        let distortion = try reader.matrix("distortion_coefficients")?.values ?? []
        let model: CameraCalibration.Model
        if let modelName = try reader.string("model") {
            guard let named = CameraCalibration.Model(rawValue: modelName) else {
                throw MarkerKitError.badInput("unknown model '\(modelName)' (models: \(CameraCalibration.Model.allCases.map(\.rawValue).joined(separator: ", ")))")
            }
            model = named
        } else {
            guard let inferred = CameraCalibration.Model.pinholeModel(coefficients: distortion.count) else {
                throw MarkerKitError.badInput("\(distortion.count) distortion coefficients: MarkerKit takes 0, 4, 5 or 8")
            }
            model = inferred
        }
        var provenance: CameraCalibration.Provenance?
        if let rms = try reader.real("avg_reprojection_error"), let views = try reader.real("nframes") {
            provenance = CameraCalibration.Provenance(
                calibrationTime: try reader.string("calibration_time") ?? "",
                views: try wholeNumber(views, "nframes"),
                boardColumns: try wholeNumber(reader.real("board_width") ?? 0, "board_width"),
                boardRows: try wholeNumber(reader.real("board_height") ?? 0, "board_height"),
                squareSize: try reader.real("square_size") ?? 0, units: try reader.string("units") ?? "",
                flags: try wholeNumber(reader.real("flags") ?? 0, "flags"), rms: rms,
                perViewErrors: try reader.matrix("per_view_reprojection_errors")?.values ?? [],
                stdDeviations: try reader.matrix("std_deviations_intrinsics")?.values ?? [],
                generator: try reader.string("generator") ?? "", detector: try reader.string("detector") ?? "")
            provenance?.coverage = try readCoverage(reader)
        }
        var calibration = try CameraCalibration(
            name: try reader.string("camera_name") ?? name, model: model, cameraMatrix: k, distortion: distortion,
            imageWidth: try wholeNumber(reader.real("image_width") ?? 0, "image_width"),
            imageHeight: try wholeNumber(reader.real("image_height") ?? 0, "image_height"),
            provenance: provenance)
        if let (values, rows, cols) = try reader.matrix("projection_covariance") {
            let size = ProjectionCovariance.size(for: model)
            guard rows == size, cols == size else { throw MarkerKitError.badInput("projection_covariance is \(rows)x\(cols), not \(size)x\(size) for \(model.rawValue)") }
            guard let noise = try reader.real("observation_noise"), let views = try reader.real("covariance_views") else {
                throw MarkerKitError.badInput("projection_covariance without observation_noise and covariance_views")
            }
            calibration.projectionCovariance = try ProjectionCovariance(matrix: values, noise: noise, views: try wholeNumber(views, "covariance_views"), model: model)
        }
        calibration.camera = try readCamera(reader)
        let crossValidation = try readCrossValidation(reader, calibration)
        calibration.provenance?.crossValidation = crossValidation
        return calibration
    }

    /// The views' coverage (`ViewCoverage`): `view_coverage` (corners per part of a 5x5 grid over the image),
    /// `views_largest_tilt` (degrees), `views_nearest` and `views_farthest` (units).
    static func writeCoverage(_ v: ViewCoverage, to storage: OpaquePointer?) throws {
        try check(cvb_storage_write_matrix(storage, "view_coverage", v.cells.map(Double.init), Int32(ViewCoverage.rows), Int32(ViewCoverage.columns)))
        try check(cvb_storage_write_real(storage, "views_largest_tilt", v.largestTilt))
        try check(cvb_storage_write_real(storage, "views_nearest", v.nearest))
        try check(cvb_storage_write_real(storage, "views_farthest", v.farthest))
    }

    static func readCoverage(_ reader: Reader) throws -> ViewCoverage? {
        guard let (cells, rows, cols) = try reader.matrix("view_coverage") else { return nil }
        guard rows == ViewCoverage.rows, cols == ViewCoverage.columns else { throw MarkerKitError.badInput("view_coverage is \(rows)x\(cols), not 5x5") }
        return try ViewCoverage(cells: try cells.map { try wholeNumber($0, "view_coverage") }, largestTilt: try reader.real("views_largest_tilt") ?? 0,
                                nearest: try reader.real("views_nearest") ?? 0, farthest: try reader.real("views_farthest") ?? 0)
    }

    /// The cross-validation run with the calibration: `cross_validation_ratio`, `_difference` and `_allowed`
    /// (medians, px), `_halves` (views in each), `_points`, and `_focus` (each half's focus range) when the
    /// views were split by focus.
    static func writeCrossValidation(_ x: CrossValidation, to storage: OpaquePointer?) throws {
        try check(cvb_storage_write_real(storage, "cross_validation_ratio", x.ratio))
        try check(cvb_storage_write_real(storage, "cross_validation_difference", x.medianDifference))
        try check(cvb_storage_write_real(storage, "cross_validation_allowed", x.medianAllowed))
        try check(cvb_storage_write_matrix(storage, "cross_validation_halves", x.halves.map(Double.init), 1, Int32(x.halves.count)))
        try check(cvb_storage_write_int(storage, "cross_validation_points", try int32(x.points, "cross_validation_points")))
        if let f = x.focusRanges { try check(cvb_storage_write_matrix(storage, "cross_validation_focus", f.flatMap { $0.map(Double.init) }, 2, 2)) }
    }

    static func readCrossValidation(_ reader: Reader, _ c: CameraCalibration) throws -> CrossValidation? {
        guard let ratio = try reader.real("cross_validation_ratio") else { return nil }
        guard let difference = try reader.real("cross_validation_difference"), let allowed = try reader.real("cross_validation_allowed"),
              let (halves, _, _) = try reader.matrix("cross_validation_halves"), let points = try reader.real("cross_validation_points") else {
            throw MarkerKitError.badInput("cross_validation_ratio without cross_validation_difference, _allowed, _halves and _points")
        }
        let focus = try reader.matrix("cross_validation_focus").map { f -> [[Int64]] in
            guard f.values.count == 4 else { throw MarkerKitError.badInput("cross_validation_focus is 2x2") }
            let v = try f.values.map { Int64(try wholeNumber($0, "cross_validation_focus")) }
            return [[v[0], v[1]], [v[2], v[3]]]
        }
        let w = Double(c.imageWidth), h = Double(c.imageHeight)
        return try CrossValidation(model: c.model.rawValue, halves: try halves.map { try wholeNumber($0, "cross_validation_halves") }, focusRanges: focus,
                                   medianDifference: difference, medianAllowed: allowed, ratio: ratio,
                                   points: try wholeNumber(points, "cross_validation_points"), diagonal: (w * w + h * h).squareRoot())
    }

    /// The camera's state as `device_*` keys (strings, the frame rate, and one integer per optics control,
    /// `device_focus_absolute`), which other readers of the file ignore.
    static func writeCamera(_ camera: CameraState, to storage: OpaquePointer?) throws {
        let strings = [("device_path", camera.device), ("device_stable_path", camera.stablePath ?? ""), ("device_card", camera.card),
                       ("device_driver", camera.driver), ("device_bus_info", camera.busInfo), ("device_pixel_format", camera.pixelFormat)]
        for (key, value) in strings where !value.isEmpty { try check(cvb_storage_write_string(storage, key, value)) }
        try check(cvb_storage_write_int(storage, "device_width", try int32(camera.width, "device_width")))
        try check(cvb_storage_write_int(storage, "device_height", try int32(camera.height, "device_height")))
        if let fps = camera.fps { try check(cvb_storage_write_real(storage, "device_fps", fps)) }
        for name in CameraState.opticsControls {
            if let value = camera.optics[name] { try check(cvb_storage_write_int(storage, "device_\(name)", try int32(Int(value), name))) }
        }
        if let range = camera.focusRange, range.count == 2 {
            try check(cvb_storage_write_int(storage, "device_focus_min", try int32(Int(range[0]), "device_focus_min")))
            try check(cvb_storage_write_int(storage, "device_focus_max", try int32(Int(range[1]), "device_focus_max")))
        }
    }

    static func readCamera(_ reader: Reader) throws -> CameraState? {
        guard let width = try reader.real("device_width"), let height = try reader.real("device_height") else { return nil }
        var optics: [String: Int64] = [:]
        for name in CameraState.opticsControls {
            if let value = try reader.real("device_\(name)") { optics[name] = Int64(try wholeNumber(value, "device_\(name)")) }
        }
        var camera = CameraState(device: try reader.string("device_path") ?? "", stablePath: try reader.string("device_stable_path"),
                                 card: try reader.string("device_card") ?? "", driver: try reader.string("device_driver") ?? "",
                                 busInfo: try reader.string("device_bus_info") ?? "", pixelFormat: try reader.string("device_pixel_format") ?? "",
                                 width: try wholeNumber(width, "device_width"), height: try wholeNumber(height, "device_height"),
                                 fps: try reader.real("device_fps").flatMap { $0.isFinite && $0 > 0 ? $0 : nil }, optics: optics)
        if let low = try reader.real("device_focus_min"), let high = try reader.real("device_focus_max") {
            camera.focusRange = [Int64(try wholeNumber(low, "device_focus_min")), Int64(try wholeNumber(high, "device_focus_max"))]
        }
        return camera
    }

    /// A count or size as FileStorage's 32-bit integer.
    static func int32(_ value: Int, _ key: String) throws -> Int32 {
        guard let narrow = Int32(exactly: value) else {
            throw MarkerKitError.invalidArgument("'\(key)' \(value) does not fit OpenCV's 32-bit integers")
        }
        return narrow
    }

    /// OpenCV 4.6's YAML reader loops forever on some malformed text (a 39-byte file; found by `make fuzz`),
    /// so the text must first be well-formed YAML to libyaml (through Yams), apart from OpenCV's own
    /// `%YAML:1.0` first line, which libyaml spells `%YAML 1.0`.
    static func checkWellFormedYAML(_ text: String) throws {
        var body = Substring(text)
        if body.hasPrefix("%YAML") {
            let firstLine = body.prefix { $0 != "\n" && $0 != "\r\n" }
            guard firstLine.wholeMatch(of: /%YAML[: ]1\.[0-9]+[ \t]*\r?/) != nil else {
                throw MarkerKitError.badInput("the first line '\(firstLine.prefix(40))' is not OpenCV's %YAML:1.0")
            }
            body = body.dropFirst(firstLine.count)
        }
        try NestingLimit.check(String(body))
        do {
            _ = try Yams.compose(yaml: String(body))
        } catch {
            throw MarkerKitError.badInput("not well-formed YAML")
        }
    }

    struct Reader {
        let storage: OpaquePointer?

        func real(_ key: String) throws -> Double? {
            var value = 0.0
            let status = cvb_storage_read_real(storage, key, &value)
            try check(status)
            return status == 1 ? value : nil
        }

        func string(_ key: String) throws -> String? {
            var text = cvb_image()
            let status = cvb_storage_read_string(storage, key, &text)
            defer { cvb_image_release(&text) }
            try check(status)
            return status == 1 ? String(decoding: UnsafeBufferPointer(start: text.data, count: Int(text.width)), as: UTF8.self) : nil
        }

        func matrix(_ key: String) throws -> (values: [Double], rows: Int, cols: Int)? {
            var values = [Double](repeating: 0, count: 4096)
            var rows: Int32 = 0, cols: Int32 = 0
            let status = cvb_storage_read_matrix(storage, key, &values, 4096, &rows, &cols)
            try check(status)
            return status == 1 ? (Array(values.prefix(Int(rows * cols))), Int(rows), Int(cols)) : nil
        }
    }

    static func check(_ status: Int32) throws {
        try Bridge.check(status, MarkerKitError.badInput)
    }
}

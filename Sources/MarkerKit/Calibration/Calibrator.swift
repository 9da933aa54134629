import CVBridge
import Foundation

/// Camera intrinsics from chessboard images: every image searched for the board, the views solved
/// with OpenCV, views whose error stands far above the rest dropped and the solve repeated, and the
/// result refused when it is not trustworthy (too few views, an unconstrained focal length).
public struct Calibrator: Sendable {
    public var board: Checkerboard
    public var model: CameraCalibration.Model = .opencv5
    public var fixAspect = false
    public var zeroTangent = false
    public var detector: ChessboardDetector.Method = .classic
    /// cornerSubPix half window; 0 picks a fifth of the corner spacing.
    public var halfWindow = 0
    /// A view is an outlier when its RMS exceeds this many times the median (and the median + 0.5 px).
    public var outlierFactor = 3.0
    /// The focal length is unconstrained when its standard deviation exceeds this fraction of it.
    public var maxFocalUncertainty = 0.05

    public init(board: Checkerboard) { self.board = board }

    /// What happened to one image.
    public struct View: Sendable {
        public enum Status: Sendable, Equatable {
            case used
            case unreadable(String)
            case noBoard
            case wrongSize(width: Int, height: Int)
            case outlier(rms: Double)
        }
        public let file: String
        public var status: Status
        public let corners: [Point2]
        public var rms: Double?
        public var rvec: [Double] = []
        public var tvec: [Double] = []

        public var reason: String {
            switch status {
            case .used: return "used"
            case .unreadable(let why): return "unreadable (\(why))"
            case .noBoard: return "no board found"
            case .wrongSize(let w, let h): return "image size \(w)x\(h) differs from the first image's"
            case .outlier(let rms): return String(format: "outlier (view RMS %.3f px)", rms)
            }
        }
    }

    public struct Result: Sendable {
        public let calibration: CameraCalibration
        public let views: [View]
        /// The board's corners in its own frame (x right, y down, z 0), in `units`.
        public let boardPoints: [(Double, Double, Double)]
        public var used: [View] { views.filter { $0.status == .used } }
    }

    /// Finds the board in images already in memory (renders), named for messages.
    public func findBoards(in images: [(name: String, image: GrayImage)]) -> (views: [View], width: Int, height: Int) {
        let finder = ChessboardDetector(innerColumns: board.innerColumns, innerRows: board.innerRows, method: detector, halfWindow: halfWindow)
        let views = images.map { item -> View in
            guard let corners = (try? finder.detect(in: item.image)) ?? nil else { return View(file: item.name, status: .noBoard, corners: []) }
            return View(file: item.name, status: .used, corners: corners)
        }
        return (views, images.first?.image.width ?? 0, images.first?.image.height ?? 0)
    }

    /// What reading and searching one image gave, before the image sizes are compared.
    private enum Search {
        case unreadable(String)
        case searched(width: Int, height: Int, corners: [Point2]?)
    }

    /// Finds the board in each image. `progress` is called before each image with (done, total, file)
    /// and once at the end; it may throw to stop the search (Ctrl-C). Images are read and searched on
    /// `jobs` threads; the views come in file order, the same for any number of jobs.
    public func findBoards(in files: [URL], jobs: Int = 1, progress: (Int, Int, String) throws -> Void = { _, _, _ in }) throws
        -> (views: [View], width: Int, height: Int) {
        let finder = ChessboardDetector(innerColumns: board.innerColumns, innerRows: board.innerRows, method: detector, halfWindow: halfWindow)
        var views: [View] = []
        var size: (Int, Int)?
        var taken = 0
        try OrderedJobs.run(jobs: jobs, makeState: { 0 }, take: { index in
            guard taken < files.count else { return false }
            index = taken
            taken += 1
            return true
        }, work: { index -> Search in
            let image: GrayImage
            do {
                image = try GrayImage(contentsOf: files[index])
            } catch let error as MarkerKitError {
                return .unreadable(error.description.contains("no such") ? "no such file" : "not an image or corrupt")
            } catch {
                return .unreadable("\(error)")
            }
            return .searched(width: image.width, height: image.height, corners: (try? finder.detect(in: image)) ?? nil)
        }, deliver: { search in
            let url = files[views.count]
            try progress(views.count, files.count, url.relativePath)
            switch search {
            case .unreadable(let why):
                views.append(View(file: url.relativePath, status: .unreadable(why), corners: []))
            case .searched(let width, let height, _) where size != nil && size! != (width, height):
                // Only boards in images of the first found board's size are used.
                views.append(View(file: url.relativePath, status: .wrongSize(width: width, height: height), corners: []))
            case .searched(_, _, nil):
                views.append(View(file: url.relativePath, status: .noBoard, corners: []))
            case .searched(let width, let height, let corners?):
                size = size ?? (width, height)
                views.append(View(file: url.relativePath, status: .used, corners: corners))
            }
        })
        try progress(files.count, files.count, "")
        return (views, size?.0 ?? 0, size?.1 ?? 0)
    }

    /// Calibrates from the views with a board; throws with a clear reason when it cannot be trusted.
    public func calibrate(views input: [View], width: Int, height: Int, name: String) throws -> Result {
        var views = input
        let found = views.filter { $0.status == .used }.count
        guard found > 0 else {
            throw MarkerKitError.badInput("no image shows a \(board.innerColumns)x\(board.innerRows) board (a board is named by its inner corners: 9x6 for 10x7 squares)")
        }
        guard found >= 3 else {
            throw MarkerKitError.badInput("only \(found) image\(found == 1 ? " shows" : "s show") the board: calibration needs at least 3 views (10 or more, tilted in different directions, are better)")
        }
        let s = board.square.millimetres
        let points = (0..<board.innerRows).flatMap { r in (0..<board.innerColumns).map { c in (Double(c) * s, Double(r) * s, 0.0) } }
        var solved = try solve(views: views, points: points, width: width, height: height)
        // Drop outliers once, then solve again.
        let errors = Array(zip(views.indices.filter { views[$0].status == .used }, solved.perView))
        let median = errors.map(\.1).sorted()[errors.count / 2]
        let limit = max(outlierFactor * median, median + 0.5)
        var dropped = 0
        for (index, rms) in errors where rms > limit {
            views[index].status = .outlier(rms: rms)
            dropped += 1
        }
        if dropped > 0 {
            guard found - dropped >= 3 else {
                throw MarkerKitError.badInput("after dropping \(dropped) outlier view\(dropped == 1 ? "" : "s") fewer than 3 remain: take more images")
            }
            solved = try solve(views: views, points: points, width: width, height: height)
        }
        var used = 0
        for index in views.indices where views[index].status == .used {
            views[index].rms = solved.perView[used]
            views[index].rvec = Array(solved.rvecs[(3 * used)..<(3 * used + 3)])
            views[index].tvec = Array(solved.tvecs[(3 * used)..<(3 * used + 3)])
            used += 1
        }
        let c = solved.result
        let k = withUnsafeBytes(of: c.camera_matrix) { Array($0.bindMemory(to: Double.self)) }
        let d = withUnsafeBytes(of: c.distortion) { Array($0.bindMemory(to: Double.self).prefix(Int(c.distortion_count))) }
        let sd = withUnsafeBytes(of: c.std_deviations) { Array($0.bindMemory(to: Double.self).prefix(Int(c.std_count))) }
        guard (k + d).allSatisfy(\.isFinite), k[0] > 0, k[4] > 0 else {
            throw MarkerKitError.badInput("the solve diverged (NaN or negative focal length): the views do not constrain the camera; take tilted views that fill the image")
        }
        if sd.count >= 2, sd[0] / k[0] > maxFocalUncertainty || sd[1] / k[4] > maxFocalUncertainty || !sd[0].isFinite {
            throw MarkerKitError.badInput(String(format: "the views are too similar to constrain the focal length (fx %.1f ± %.1f px): tilt the board in different directions, about 30-45°", k[0], sd[0]))
        }
        let provenance = CameraCalibration.Provenance(
            calibrationTime: ISO8601DateFormatter().string(from: Date()), views: used, boardColumns: board.innerColumns,
            boardRows: board.innerRows, squareSize: board.square.millimetres, units: "mm", flags: Int(c.flags), rms: c.rms,
            perViewErrors: views.compactMap { $0.status == .used ? $0.rms : nil }, stdDeviations: sd, detector: detector.summary)
        let calibration = try CameraCalibration(name: name, model: model, cameraMatrix: k, distortion: d, imageWidth: width,
                                                imageHeight: height, provenance: provenance)
        return Result(calibration: calibration, views: views, boardPoints: points)
    }

    private func solve(views: [View], points: [(Double, Double, Double)], width: Int, height: Int) throws
        -> (result: cvb_calibration, perView: [Double], rvecs: [Double], tvecs: [Double]) {
        let used = views.filter { $0.status == .used }
        let object = points.flatMap { [$0.0, $0.1, $0.2] }
        let image = used.flatMap { $0.corners.flatMap { [$0.x, $0.y] } }
        var result = cvb_calibration()
        var rvecs = [Double](repeating: 0, count: 3 * used.count), tvecs = rvecs
        var perView = [Double](repeating: 0, count: used.count)
        let bridgeModel: cvb_model
        switch model {
        case .opencv5: bridgeModel = CVB_MODEL_OPENCV5
        case .opencv8: bridgeModel = CVB_MODEL_OPENCV8
        case .fisheye: bridgeModel = CVB_MODEL_FISHEYE
        default: throw MarkerKitError.invalidArgument("a calibration solves for opencv5, opencv8 or fisheye only")
        }
        var options: cvb_calibration_options = []
        if fixAspect { options.insert(.CVB_CALIB_FIX_ASPECT) }
        if zeroTangent { options.insert(.CVB_CALIB_ZERO_TANGENT) }
        let status = cvb_calibrate(object, Int32(points.count), image, Int32(used.count), Int32(width), Int32(height),
                                   bridgeModel, options, &result, &rvecs, &tvecs, &perView)
        try Bridge.check(status) { .badInput("OpenCV could not calibrate from these views: \($0)") }
        return (result, perView, rvecs, tvecs)
    }
}

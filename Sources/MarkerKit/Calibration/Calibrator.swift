import CVBridge
import Foundation

/// Camera intrinsics from images of a board: every image searched for the board (a chessboard must be
/// seen whole; a ChArUco board counts with at least 6 corners not on one line, so views may leave the
/// image), the views solved with OpenCV, views whose error stands far above the rest dropped and the
/// solve repeated, and the result refused when it is not trustworthy (too few views, an unconstrained
/// focal length).
public struct Calibrator: Sendable {
    public var target: CalibrationTarget
    public var model: CameraCalibration.Model = .opencv5
    public var fixAspect = false
    public var zeroTangent = false
    /// k3 held at zero (opencv5): the radtan model of ROS and Kalibr with OpenCV's five coefficients.
    /// The opencv4 model is solved this way too and keeps k1 k2 p1 p2.
    public var fixK3 = false
    public var detector: ChessboardDetector.Method = .classic
    /// cornerSubPix half window; 0 picks a fifth of the corner spacing.
    public var halfWindow = 0
    /// Chessboard corners fitted again, from cornerSubPix's, with the model ChArUco corners are fitted
    /// with (`ChessboardCornerFit`); false keeps cornerSubPix's, as OpenCV's samples calibrate.
    public var fitsCorners = true
    /// A view is an outlier when its RMS exceeds this many times the median (and the median + 0.5 px).
    public var outlierFactor = 3.0
    /// The focal length is unconstrained when its standard deviation exceeds this fraction of it.
    public var maxFocalUncertainty = 0.05

    /// Least corners a ChArUco view needs (not all on one line).
    public var minimumCorners = 6

    public init(board: Checkerboard) { target = .checkerboard(board) }

    public init(target: CalibrationTarget) { self.target = target }

    /// What happened to one image.
    public struct View: Sendable {
        public enum Status: Sendable, Equatable {
            case used
            case unreadable(String)
            case noBoard
            /// A ChArUco view with too few corners, or all on one line; `why` says what was read and
            /// refused ("12 markers read; corners refused: 40 contrast").
            case tooFewCorners(Int, why: String? = nil)
            case wrongSize(width: Int, height: Int)
            case outlier(rms: Double)
        }
        public let file: String
        public var status: Status
        public let corners: [Point2]
        /// The board's corner IDs of `corners` (all of them, in order, for a chessboard).
        public let cornerIDs: [Int]
        /// Each corner's standard deviation (px) from its own fit, where the detector gives one (ChArUco
        /// corners); nil when it does not (cornerSubPix gives none). The rig's joint solve weighs each
        /// corner of a camera by it.
        public let cornerSigmas: [Double]?
        public var rms: Double?
        public var rvec: [Double] = []
        public var tvec: [Double] = []

        public var reason: String {
            switch status {
            case .used: return "used"
            case .unreadable(let why): return "unreadable (\(why))"
            case .noBoard: return "no board found"
            case .tooFewCorners(let n, let why):
                return "\(counted(n, "board corner")) found: a view needs 6 or more, not all on one line" + (why.map { " (\($0))" } ?? "")
            case .wrongSize(let w, let h): return "image size \(w)x\(h) differs from the first image's"
            case .outlier(let rms): return String(format: "outlier (view RMS %.3f px)", rms)
            }
        }

        public init(file: String, status: Status, corners: [Point2], cornerIDs: [Int]? = nil, cornerSigmas: [Double]? = nil) {
            self.file = file
            self.status = status
            self.corners = corners
            self.cornerIDs = cornerIDs ?? Array(corners.indices)
            self.cornerSigmas = cornerSigmas?.count == corners.count ? cornerSigmas : nil
        }
    }

    public struct Result: Sendable {
        public var calibration: CameraCalibration
        public let views: [View]
        /// The board's corners in its own frame (x right, y down, z 0), in `units`, by corner ID.
        public let boardPoints: [(Double, Double, Double)]
        public var used: [View] { views.filter { $0.status == .used } }
    }

    /// Finds the board in images already in memory (renders), named for messages.
    public func findBoards(in images: [(name: String, image: GrayImage)]) -> (views: [View], width: Int, height: Int) {
        let views = images.map { view(named: $0.name, search(in: $0.image)) }
        return (views, images.first?.image.width ?? 0, images.first?.image.height ?? 0)
    }

    /// What the board search found in one image: the corners with their IDs, or how many corners a
    /// ChArUco view had when too few, with what was read and refused (nothing: no board at all).
    enum Found {
        case corners([Point2], ids: [Int], sigmas: [Double]? = nil)
        case tooFew(Int, why: String?)
        case nothing
    }

    func search(in image: GrayImage) -> Found {
        switch target {
        case .checkerboard(let board) where detector == .classic && fitsCorners:
            // OpenCV's finders in turn, each corner fitted (ChessboardFinder).
            let finder = ChessboardFinder(innerColumns: board.innerColumns, innerRows: board.innerRows)
            guard let found = (try? finder.find(in: image)) ?? nil else { return .nothing }
            return .corners(found.corners, ids: Array(found.corners.indices))
        case .checkerboard(let board):
            let finder = ChessboardDetector(innerColumns: board.innerColumns, innerRows: board.innerRows, method: detector, halfWindow: halfWindow)
            guard let corners = (try? finder.detect(in: image)) ?? nil else { return .nothing }
            guard fitsCorners else { return .corners(corners, ids: Array(corners.indices)) }
            return .corners(ChessboardCornerFit().refine(corners, columns: board.innerColumns, in: image), ids: Array(corners.indices))
        case .charuco(let board):
            // A view whose markers are read gives its corners, or says why not.
            guard let found = try? CharucoDetector(board: board).detect(in: image), !found.markers.isEmpty else { return .nothing }
            guard found.isUsableView(columns: board.squaresX - 1, minimum: minimumCorners) else {
                let markers = "\(counted(found.markers.count, "marker")) read"
                return .tooFew(found.corners.count, why: markers + (found.refusalSummary.map { "; corners refused: \($0)" } ?? ""))
            }
            return .corners(found.corners.map(\.point), ids: found.corners.map(\.id), sigmas: found.cornerSigmas)
        }
    }

    private func view(named name: String, _ found: Found) -> View {
        switch found {
        case .corners(let corners, let ids, let sigmas): return View(file: name, status: .used, corners: corners, cornerIDs: ids, cornerSigmas: sigmas)
        case .tooFew(let n, let why): return View(file: name, status: .tooFewCorners(n, why: why), corners: [])
        case .nothing: return View(file: name, status: .noBoard, corners: [])
        }
    }

    /// What reading and searching one image gave, before the image sizes are compared.
    private enum Search {
        case unreadable(String)
        case searched(width: Int, height: Int, found: Found)
    }

    /// Finds the board in each image. `progress` is called before each image with (done, total, file)
    /// and once at the end; it may throw to stop the search (Ctrl-C). Images are read and searched on
    /// `jobs` threads; the views come in file order, the same for any number of jobs.
    public func findBoards(in files: [URL], jobs: Int = 1, progress: (Int, Int, String) throws -> Void = { _, _, _ in }) throws
        -> (views: [View], width: Int, height: Int) {
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
            return .searched(width: image.width, height: image.height, found: search(in: image))
        }, deliver: { search in
            let url = files[views.count]
            try progress(views.count, files.count, url.relativePath)
            switch search {
            case .unreadable(let why):
                views.append(View(file: url.relativePath, status: .unreadable(why), corners: []))
            case .searched(let width, let height, _) where size != nil && size! != (width, height):
                // Only boards in images of the first found board's size are used.
                views.append(View(file: url.relativePath, status: .wrongSize(width: width, height: height), corners: []))
            case .searched(let width, let height, let found):
                if case .corners = found { size = size ?? (width, height) }
                views.append(view(named: url.relativePath, found))
            }
        })
        try progress(files.count, files.count, "")
        return (views, size?.0 ?? 0, size?.1 ?? 0)
    }

    /// Calibrates from the views with a board; throws with a clear reason when it cannot be trusted.
    public func calibrate(views input: [View], width: Int, height: Int, name: String) throws -> Result {
        try model.requireSolvable()
        var views = input
        try requireEnoughViews(views)
        let points = (0..<(target.innerColumns * target.innerRows)).map(target.point(of:))
        let solved = try solveDroppingOutliers(&views, points: points, width: width, height: height)
        let used = record(solved, in: &views)
        let (k, d, sd) = try intrinsics(of: solved.result)
        let c = solved.result
        var provenance = CameraCalibration.Provenance(
            calibrationTime: ISO8601DateFormatter().string(from: Date()), views: used, boardColumns: target.innerColumns,
            boardRows: target.innerRows, squareSize: target.square.millimetres, units: "mm", flags: Int(c.flags), rms: c.rms,
            perViewErrors: views.compactMap { $0.status == .used ? $0.rms : nil }, stdDeviations: sd, detector: detectorSummary)
        provenance.coverage = try ViewCoverage(views: views.filter { $0.status == .used }, boardPoints: points, width: width, height: height)
        var calibration = try CameraCalibration(name: name, model: model, cameraMatrix: k, distortion: d, imageWidth: width,
                                                imageHeight: height, provenance: provenance)
        calibration.projectionCovariance = try projectionCovariance(of: calibration, views: views, points: points)
        return Result(calibration: calibration, views: views, boardPoints: points)
    }

    /// Three views with the board at least, or why there are not.
    private func requireEnoughViews(_ views: [View]) throws {
        let found = views.filter { $0.status == .used }.count
        guard found > 0 else {
            // What the first readable picture shows instead, when it shows something (BoardSpecHint).
            let hint = views.lazy.compactMap { view -> String? in
                guard case .noBoard = view.status, let image = try? GrayImage(contentsOf: URL(fileURLWithPath: view.file)) else { return nil }
                return BoardSpecHint.line(for: self.target, in: image).map { "; \(view.file): \($0)" } ?? ""
            }.first ?? ""
            if case .charuco(let board) = target {
                let few = views.compactMap { if case .tooFewCorners(let n, _) = $0.status { return n } else { return nil } }
                throw MarkerKitError.badInput(few.isEmpty
                    ? "no image shows the \(board.squaresX)x\(board.squaresY) ChArUco board (\(board.dictionary.name) from ID \(board.firstID)): check the board spec's dictionary, first ID and squares" + hint
                    : "no image shows 6 or more corners of the ChArUco board (at most \(few.max()!)): hold the board closer or take more of it in view")
            }
            throw MarkerKitError.badInput("no image shows a \(target.innerColumns)x\(target.innerRows) board (a board is named by its inner corners: 9x6 for 10x7 squares)" + hint)
        }
        guard found >= 3 else {
            throw MarkerKitError.badInput("only \(found) image\(found == 1 ? " shows" : "s show") the board: calibration needs at least 3 views (10 or more, tilted in different directions, are better)")
        }
    }

    /// The solve; views whose RMS is far above the median (`outlierFactor`) are marked outliers once and
    /// the rest solved again.
    private func solveDroppingOutliers(_ views: inout [View], points: [(Double, Double, Double)], width: Int, height: Int) throws
        -> (result: cvb_calibration, perView: [Double], rvecs: [Double], tvecs: [Double]) {
        let found = views.filter { $0.status == .used }.count
        let solved = try solve(views: views, points: points, width: width, height: height)
        let errors = Array(zip(views.indices.filter { views[$0].status == .used }, solved.perView))
        let median = errors.map(\.1).sorted()[errors.count / 2]
        let limit = max(outlierFactor * median, median + 0.5)
        var dropped = 0
        for (index, rms) in errors where rms > limit {
            views[index].status = .outlier(rms: rms)
            dropped += 1
        }
        guard dropped > 0 else { return solved }
        guard found - dropped >= 3 else {
            throw MarkerKitError.badInput("after dropping \(counted(dropped, "outlier view")) fewer than 3 remain: take more images")
        }
        return try solve(views: views, points: points, width: width, height: height)
    }

    /// Each used view's RMS and pose from the solve; the number of views used.
    private func record(_ solved: (result: cvb_calibration, perView: [Double], rvecs: [Double], tvecs: [Double]), in views: inout [View]) -> Int {
        var used = 0
        for index in views.indices where views[index].status == .used {
            views[index].rms = solved.perView[used]
            views[index].rvec = Array(solved.rvecs[(3 * used)..<(3 * used + 3)])
            views[index].tvec = Array(solved.tvecs[(3 * used)..<(3 * used + 3)])
            used += 1
        }
        return used
    }

    /// The camera matrix, distortion and standard deviations of a solve, refused when the solve diverged or
    /// the views leave the focal length loose (`maxFocalUncertainty`).
    private func intrinsics(of c: cvb_calibration) throws -> (k: [Double], d: [Double], sd: [Double]) {
        let k = withUnsafeBytes(of: c.camera_matrix) { Array($0.bindMemory(to: Double.self)) }
        // opencv4 is opencv5 solved with k3 fixed at zero: its first four coefficients.
        let d = withUnsafeBytes(of: c.distortion) { Array($0.bindMemory(to: Double.self).prefix(min(Int(c.distortion_count), model.distortionCount))) }
        let sd = withUnsafeBytes(of: c.std_deviations) { Array($0.bindMemory(to: Double.self).prefix(min(Int(c.std_count), 4 + model.distortionCount))) }
        guard (k + d).allSatisfy(\.isFinite), k[0] > 0, k[4] > 0 else {
            throw MarkerKitError.badInput("the solve diverged (NaN or negative focal length): the views do not constrain the camera; take tilted views that fill the image")
        }
        if sd.count >= 2, sd[0] / k[0] > maxFocalUncertainty || sd[1] / k[4] > maxFocalUncertainty || !sd[0].isFinite {
            let similar = MarkerKitError.badInput(String(format: "the views are too similar to constrain the focal length (fx %.1f ± %.1f px): tilt the board in different directions, about 30-45°", k[0], sd[0]))
            guard model != .fisheye else { throw similar }
            let lens = String(format: "%@; or the %@ model cannot follow the lens (RMS %.2f px): with a wide-angle lens", similar.description, model.rawValue, c.rms)
            throw MarkerKitError.advised(.badInput(lens), .lensModel(CameraCalibration.Model.fisheye.rawValue))
        }
        return (k, d, sd)
    }

    /// How the corners were found, as the calibration file records it.
    var detectorSummary: String {
        switch target {
        case .checkerboard where detector == .classic && fitsCorners:
            return "the x-corner grid, else findChessboardCorners (global threshold, then adaptive at half and full size), else findChessboardCornersSB; each corner then fitted"
        case .checkerboard: return detector.summary + (fitsCorners ? ", each corner then fitted" : "")
        case .charuco: return "MarkerKit CharucoDetector (markers read, then each corner fitted)"
        }
    }

    /// The solve. A ChArUco calibration is solved twice: first on the corners in the middle of the image
    /// (within half the half-diagonal of its centre), where the lens bends little, then on every corner
    /// starting from that result. Started with no distortion, as OpenCV starts, a strong lens seen
    /// mostly at the image's edges can leave the solve in a wrong minimum (cx 1.6% off for k1 = -0.4).
    private func solve(views: [View], points: [(Double, Double, Double)], width: Int, height: Int) throws
        -> (result: cvb_calibration, perView: [Double], rvecs: [Double], tvecs: [Double]) {
        let used = views.filter { $0.status == .used }
        var guess: cvb_calibration?
        if case .charuco = target {
            let centre = Point2(x: Double(width - 1) / 2, y: Double(height - 1) / 2), limit = 0.5 * centre.distance(to: Point2(x: 0, y: 0))
            let middle = used.compactMap { view -> View? in
                let keep = view.corners.indices.filter { view.corners[$0].distance(to: centre) <= limit }
                let part = View(file: view.file, status: .used, corners: keep.map { view.corners[$0] }, cornerIDs: keep.map { view.cornerIDs[$0] })
                let detection = CharucoDetection(corners: keep.map { CharucoDetection.Corner(id: view.cornerIDs[$0], point: view.corners[$0]) },
                                                 markers: [], foreignMarkers: [])
                return detection.isUsableView(columns: target.innerColumns, minimum: 8) ? part : nil
            }
            if middle.count >= 3 { guess = try? solveOnce(middle, points: points, width: width, height: height, guess: nil).result }
        }
        return try solveOnce(used, points: points, width: width, height: height, guess: guess)
    }

    private func solveOnce(_ used: [View], points: [(Double, Double, Double)], width: Int, height: Int, guess: cvb_calibration?) throws
        -> (result: cvb_calibration, perView: [Double], rvecs: [Double], tvecs: [Double]) {
        let object = used.flatMap { $0.cornerIDs.flatMap { [points[$0].0, points[$0].1, points[$0].2] } }
        let counts = used.map { Int32($0.corners.count) }
        let image = used.flatMap { $0.corners.flatMap { [$0.x, $0.y] } }
        var result = cvb_calibration()
        var rvecs = [Double](repeating: 0, count: 3 * used.count), tvecs = rvecs
        var perView = [Double](repeating: 0, count: used.count)
        let bridgeModel: cvb_model
        switch model {
        case .opencv4, .opencv5: bridgeModel = CVB_MODEL_OPENCV5
        case .opencv8: bridgeModel = CVB_MODEL_OPENCV8
        case .fisheye: bridgeModel = CVB_MODEL_FISHEYE
        case .pinhole: try model.requireSolvable(); bridgeModel = CVB_MODEL_OPENCV5 // refused before: calibrate(views:) checks first
        }
        if fixK3, model != .opencv5, model != .opencv4 {
            throw MarkerKitError.invalidArgument("fixing k3 applies to the opencv5 model (opencv4 has no k3)")
        }
        var options: cvb_calibration_options = []
        if fixAspect { options.insert(.CVB_CALIB_FIX_ASPECT) }
        if zeroTangent { options.insert(.CVB_CALIB_ZERO_TANGENT) }
        if fixK3 || model == .opencv4 { options.insert(.CVB_CALIB_FIX_K3) }
        let status: Int32
        if var start = guess {
            status = cvb_calibrate(object, counts, image, Int32(used.count), Int32(width), Int32(height),
                                   bridgeModel, options, &start, &result, &rvecs, &tvecs, &perView)
        } else {
            status = cvb_calibrate(object, counts, image, Int32(used.count), Int32(width), Int32(height),
                                   bridgeModel, options, nil, &result, &rvecs, &tvecs, &perView)
        }
        try Bridge.check(status) { .badInput("OpenCV could not calibrate from these views: \($0)") }
        return (result, perView, rvecs, tvecs)
    }
}

import Foundation

/// Runs several marker detectors on the same sampled renders and measures each against the truth:
/// recall, wrong IDs, false positives, corner error, pose error and time, overall and by marker size,
/// tilt and noise.
public struct MarkerVerification {
    /// A detector under test.
    public struct Contender: Sendable {
        public let name: String
        public let detect: @Sendable (GrayImage) throws -> [MarkerDetection]

        public init(name: String, detect: @escaping @Sendable (GrayImage) throws -> [MarkerDetection]) {
            self.name = name
            self.detect = detect
        }

        public static let markerkit = Contender(name: "markerkit") { try MarkerDetector().detect(in: $0) }
        public static let openCV = Contender(name: "opencv") { try OpenCVArucoDetector().detect(in: $0) }
        public static let openCVSubpix = Contender(name: "opencv-subpix") { try OpenCVArucoDetector(cornerRefinement: .subpixel).detect(in: $0) }
        public static let all = [markerkit, openCV, openCVSubpix]

        /// The three contenders reading `dictionary`.
        public static func all(dictionary: MarkerDictionary) -> [Contender] {
            [Contender(name: "markerkit") { try MarkerDetector(dictionary: dictionary).detect(in: $0) },
             Contender(name: "opencv") { try OpenCVArucoDetector(dictionary: dictionary).detect(in: $0) },
             Contender(name: "opencv-subpix") { try OpenCVArucoDetector(cornerRefinement: .subpixel, dictionary: dictionary).detect(in: $0) }]
        }
    }

    /// One detector's result on one marker.
    public struct Outcome: Codable, Sendable {
        public let found: Bool
        public let wrongID: Bool
        public let falsePositives: Int
        /// The four corner errors (px) when found.
        public let cornerErrors: [Double]
        public let rotationError: Double?
        /// Translation error relative to the distance, in percent.
        public let translationError: Double?
        public let seconds: Double
    }

    /// One render: its conditions and every detector's outcome.
    public struct Trial: Codable, Sendable {
        public let index: Int
        public let id: Int
        public let sidePixels: Double
        public let tiltDegrees: Double
        public let noise: Double
        public let blur: Double
        public let jpeg: Bool
        public let outcomes: [String: Outcome]

        public var isClean: Bool { noise == 0 && blur == 0 && !jpeg }
    }

    public var contenders: [Contender]
    public var renders: Int
    public var sampler: MarkerSceneSampler

    public init(contenders: [Contender] = Contender.all, renders: Int, sampler: MarkerSceneSampler) {
        self.contenders = contenders
        self.renders = renders
        self.sampler = sampler
    }

    /// `progress` is called after each render and may throw to stop the run (Ctrl-C). The renders are
    /// sampled in order here and rendered, detected and scored on `jobs` threads, each with its own
    /// renderer; the trials come in render order, the same for any number of jobs but for the times.
    public mutating func run(jobs: Int = 1, progress: (Int, Int) throws -> Void = { _, _ in }) throws -> [Trial] {
        let renders = renders, contenders = contenders
        var sampler = sampler
        defer { self.sampler = sampler }
        var sampled = 0
        var trials: [Trial] = []
        try OrderedJobs.run(jobs: jobs, makeState: { (renderer: SceneRenderer(), sample: MarkerSceneSampler.Sample?.none, index: 0) }, take: { state in
            guard sampled < renders else { return false }
            state.sample = try sampler.next()
            state.index = sampled
            sampled += 1
            return true
        }, work: { state in
            let sample = state.sample!
            let image = try state.renderer.render(sample.scene)
            let estimator = MarkerPoseEstimator(calibration: sample.scene.camera, side: sample.truth.side)
            var outcomes: [String: Outcome] = [:]
            for contender in contenders {
                let clock = ContinuousClock()
                let start = clock.now
                let detections = try contender.detect(image)
                let elapsed = clock.now - start
                outcomes[contender.name] = try Self.score(detections, truth: sample.truth, estimator: estimator,
                                                          seconds: Double(elapsed.components.attoseconds) * 1e-18 + Double(elapsed.components.seconds))
            }
            let d = sample.scene.degradations
            return Trial(index: state.index, id: sample.truth.id, sidePixels: sample.truth.sidePixels, tiltDegrees: sample.tiltDegrees,
                         noise: d.noise, blur: d.blur, jpeg: d.jpegQuality != nil, outcomes: outcomes)
        }, deliver: { trial in
            trials.append(trial)
            try progress(trials.count, renders)
        })
        return trials
    }

    /// The same measurements on the images of a folder `markerkit render` wrote, against its truth.json:
    /// one trial per marker of every image. `progress` may throw to stop the run (Ctrl-C). Images are
    /// read, detected and scored on `jobs` threads; the trials come in the truth file's order.
    public static func run(truth: RenderTruthFile, folder: URL, contenders: [Contender] = Contender.all, jobs: Int = 1,
                           progress: (Int, Int) throws -> Void = { _, _ in }) throws -> [Trial] {
        let camera = try truth.calibration()
        let scenes = truth.scenes
        var taken = 0
        var trials: [Trial] = []
        var done = 0
        try OrderedJobs.run(jobs: jobs, makeState: { 0 }, take: { sceneIndex in
            guard taken < scenes.count else { return false }
            sceneIndex = taken
            taken += 1
            return true
        }, work: { sceneIndex -> [Trial] in
            let scene = scenes[sceneIndex]
            let image = try GrayImage(contentsOf: folder.appendingPathComponent(scene.file))
            guard image.width == camera.imageWidth, image.height == camera.imageHeight else {
                throw MarkerKitError.badInput("'\(scene.file)' is \(image.width)x\(image.height), the truth's camera \(camera.imageWidth)x\(camera.imageHeight)")
            }
            var found: [String: (detections: [MarkerDetection], seconds: Double)] = [:]
            for contender in contenders {
                let clock = ContinuousClock()
                let start = clock.now
                let detections = try contender.detect(image)
                let elapsed = clock.now - start
                found[contender.name] = (detections, Double(elapsed.components.attoseconds) * 1e-18 + Double(elapsed.components.seconds))
            }
            let d = scene.degradations
            var sceneTrials: [Trial] = []
            for marker in scene.markers {
                let target = marker.sceneTruth
                let estimator = MarkerPoseEstimator(calibration: camera, side: target.side)
                var outcomes: [String: Outcome] = [:]
                for (name, result) in found {
                    // Other markers of the image are not false positives of this one.
                    let others = scene.markers.filter { $0.id != marker.id }.map(\.sceneTruth)
                    let own = result.detections.filter { detection in
                        !others.contains { SceneGeometry.contains($0.corners, detection.center) } || detection.id == marker.id
                    }
                    outcomes[name] = try score(own, truth: target, estimator: estimator, seconds: result.seconds)
                }
                // Numbered in order when delivered.
                sceneTrials.append(Trial(index: 0, id: marker.id, sidePixels: target.sidePixels, tiltDegrees: marker.tiltDegrees,
                                         noise: d.noise, blur: d.blur, jpeg: d.jpegQuality != nil, outcomes: outcomes))
            }
            return sceneTrials
        }, deliver: { sceneTrials in
            for trial in sceneTrials {
                trials.append(Trial(index: trials.count, id: trial.id, sidePixels: trial.sidePixels, tiltDegrees: trial.tiltDegrees,
                                    noise: trial.noise, blur: trial.blur, jpeg: trial.jpeg, outcomes: trial.outcomes))
            }
            done += 1
            try progress(done, scenes.count)
        })
        return trials
    }

    static func score(_ detections: [MarkerDetection], truth: SceneTruth.Marker, estimator: MarkerPoseEstimator, seconds: Double) throws -> Outcome {
        let centre = Point2(x: truth.corners.map(\.x).reduce(0, +) / 4, y: truth.corners.map(\.y).reduce(0, +) / 4)
        let here = detections.filter { $0.center.distance(to: centre) < max(truth.sidePixels / 2, 3) }
        let falsePositives = detections.count - here.count
        guard let match = here.first(where: { $0.id == truth.id }) else {
            return Outcome(found: false, wrongID: !here.isEmpty, falsePositives: falsePositives, cornerErrors: [],
                           rotationError: nil, translationError: nil, seconds: seconds)
        }
        let errors = zip(match.corners, truth.corners).map { $0.distance(to: $1) }
        let pose = try estimator.pose(of: match)
        let rotation = Pose3D.angleBetween(pose.rvec, truth.pose.rvec)
        let dt = zip(pose.tvec, truth.pose.tvec).map { ($0 - $1) * ($0 - $1) }.reduce(0, +).squareRoot()
        let distance = truth.pose.tvec.map { $0 * $0 }.reduce(0, +).squareRoot()
        return Outcome(found: true, wrongID: here.count > 1, falsePositives: falsePositives, cornerErrors: errors,
                       rotationError: rotation, translationError: 100 * dt / distance, seconds: seconds)
    }
}

/// The figures of a set of trials for one detector.
public struct DetectorFigures: Codable, Sendable {
    public let detector: String
    public let markers: Int
    public let recall: Double
    public let wrongIDs: Int
    public let falsePositives: Int
    public let cornerP50: Double?
    public let cornerP90: Double?
    public let cornerMax: Double?
    public let cornerRMSE: Double?
    public let rotationP50: Double?
    public let translationP50: Double?
    public let secondsP50: Double?

    public init(detector: String, trials: [MarkerVerification.Trial]) {
        let outcomes = trials.compactMap { $0.outcomes[detector] }
        let found = outcomes.filter(\.found)
        let corners = found.flatMap(\.cornerErrors).sorted()
        self.detector = detector
        markers = outcomes.count
        recall = outcomes.isEmpty ? 0 : Double(found.count) / Double(outcomes.count)
        wrongIDs = outcomes.filter(\.wrongID).count
        falsePositives = outcomes.map(\.falsePositives).reduce(0, +)
        cornerP50 = Self.percentile(corners, 0.5)
        cornerP90 = Self.percentile(corners, 0.9)
        cornerMax = corners.last
        cornerRMSE = corners.isEmpty ? nil : (corners.map { $0 * $0 }.reduce(0, +) / Double(corners.count)).squareRoot()
        rotationP50 = Self.percentile(found.compactMap(\.rotationError).sorted(), 0.5)
        translationP50 = Self.percentile(found.compactMap(\.translationError).sorted(), 0.5)
        secondsP50 = Self.percentile(outcomes.map(\.seconds).sorted(), 0.5)
    }

    static func percentile(_ sorted: [Double], _ p: Double) -> Double? {
        guard !sorted.isEmpty else { return nil }
        return sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * p).rounded()))]
    }
}

/// Trials grouped by a condition.
public struct Breakdown: Codable, Sendable {
    public struct Bucket: Codable, Sendable {
        public let label: String
        public let lower: Double
        public let upper: Double
        public let figures: [DetectorFigures]
    }
    public let condition: String
    public let buckets: [Bucket]

    public init(condition: String, edges: [Double], detectors: [String], trials: [MarkerVerification.Trial],
                value: (MarkerVerification.Trial) -> Double, format: (Double, Double) -> String) {
        self.condition = condition
        buckets = zip(edges, edges.dropFirst()).map { lower, upper in
            let inside = trials.filter { value($0) >= lower && value($0) < upper }
            return Bucket(label: format(lower, upper), lower: lower, upper: upper,
                          figures: detectors.map { DetectorFigures(detector: $0, trials: inside) })
        }
    }
}

/// A whole verification run: settings, overall figures, breakdowns.
public struct MarkerVerificationSummary: Codable, Sendable {
    public let renders: Int
    public let seed: UInt64
    public let width: Int
    public let height: Int
    public let camera: String
    /// The render folder measured, when the renders were not sampled for this run.
    public var source: String?
    public let overall: [DetectorFigures]
    /// Renders with no noise, blur or JPEG, markers of 50 px side or more: the corner accuracy itself.
    public let cleanLarge: [DetectorFigures]
    public let bySize: Breakdown
    public let byTilt: Breakdown
    public let byNoise: Breakdown

    public init(trials: [MarkerVerification.Trial], detectors: [String], seed: UInt64, width: Int, height: Int, camera: String) {
        renders = trials.count
        self.seed = seed
        self.width = width
        self.height = height
        self.camera = camera
        overall = detectors.map { DetectorFigures(detector: $0, trials: trials) }
        let clean = trials.filter { $0.isClean && $0.sidePixels >= 50 }
        cleanLarge = detectors.map { DetectorFigures(detector: $0, trials: clean) }
        bySize = Breakdown(condition: "marker side (px)", edges: [0, 20, 50, 100, 200, 10_000], detectors: detectors, trials: trials,
                           value: \.sidePixels) { $1 > 1000 ? "\(Int($0))+" : "\(Int($0))-\(Int($1))" }
        byTilt = Breakdown(condition: "tilt (degrees)", edges: [0, 15, 30, 45, 60, 90], detectors: detectors, trials: trials,
                           value: \.tiltDegrees) { "\(Int($0))-\(Int($1))" }
        byNoise = Breakdown(condition: "noise (gray levels)", edges: [0, 0.5, 1.5, 3, 6, 100], detectors: detectors, trials: trials,
                            value: \.noise) { lower, upper in
            ["0", "1", "2", "4", "8"][[0, 0.5, 1.5, 3, 6].firstIndex(of: lower) ?? 0]
        }
    }

    /// The results as the table `markerkit verify markers` prints.
    public var table: String {
        func f(_ v: Double?, _ format: String) -> String { v.map { String(format: format, $0) } ?? "-" }
        var lines = [source.map { "\(renders) markers in \($0), \(width)x\(height), camera \(camera)" }
                     ?? "\(renders) renders \(width)x\(height), seed \(seed), camera \(camera)", ""]
        lines.append("detector        recall  wrong  false   corner px: P50    P90    max   RMSE   rot° P50  trans% P50  ms P50")
        for d in overall {
            lines.append(d.detector.padding(toLength: 14, withPad: " ", startingAt: 0)
                + String(format: " %6.1f%% %6d %6d", 100 * d.recall, d.wrongIDs, d.falsePositives)
                + "        " + [f(d.cornerP50, "%6.3f"), f(d.cornerP90, "%6.3f"), f(d.cornerMax, "%6.2f"), f(d.cornerRMSE, "%6.3f")].joined(separator: " ")
                + "   " + f(d.rotationP50, "%7.3f") + "   " + f(d.translationP50, "%9.3f") + "  " + f(d.secondsP50.map { $0 * 1000 }, "%6.1f"))
        }
        lines.append("")
        lines.append("clean renders (no noise, blur or JPEG), side >= 50 px: corner RMSE " + cleanLarge.map {
            "\($0.detector) \(f($0.cornerRMSE, "%.4f")) px (n=\($0.markers))" }.joined(separator: ", "))
        for breakdown in [bySize, byTilt, byNoise] {
            lines.append("")
            lines.append("by \(breakdown.condition): recall % / corner RMSE px")
            lines.append("  " + "bucket".padding(toLength: 10, withPad: " ", startingAt: 0) + "     n  "
                + overall.map { $0.detector.padding(toLength: 22, withPad: " ", startingAt: 0) }.joined())
            for bucket in breakdown.buckets {
                let n = bucket.figures.first?.markers ?? 0
                lines.append("  " + bucket.label.padding(toLength: 10, withPad: " ", startingAt: 0) + String(format: "%6d  ", n)
                    + bucket.figures.map {
                        (String(format: "%5.1f", 100 * $0.recall) + " / " + f($0.cornerRMSE, "%.3f")).padding(toLength: 22, withPad: " ", startingAt: 0)
                    }.joined())
            }
        }
        return lines.joined(separator: "\n")
    }
}

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

    /// One marker of one render: its conditions and every detector's outcome.
    public struct Trial: Codable, Sendable {
        public let index: Int
        public let id: Int
        public let sidePixels: Double
        public let tiltDegrees: Double
        /// Noise standard deviation in gray levels (the sensor's at the middle of the marker's ink and
        /// paper levels included).
        public let noise: Double
        public let blur: Double
        public let jpeg: Bool
        public let outcomes: [String: Outcome]
        /// The render it is in (renders of several markers), counted from 0 in sampling order.
        public var render: Int? = nil
        /// Motion blur (px) and JPEG quality, when set.
        public var motionBlur: Double? = nil
        public var jpegQuality: Int? = nil
        /// What is printed beside it and how close (cells of paper from its black border).
        public var beside: NearbyPrint? = nil
        public var quietZone: Double? = nil

        public var isClean: Bool { noise == 0 && blur == 0 && !jpeg && (motionBlur ?? 0) == 0 }

        public init(index: Int, id: Int, sidePixels: Double, tiltDegrees: Double, noise: Double, blur: Double, jpeg: Bool,
                    outcomes: [String: Outcome]) {
            self.index = index
            self.id = id
            self.sidePixels = sidePixels
            self.tiltDegrees = tiltDegrees
            self.noise = noise
            self.blur = blur
            self.jpeg = jpeg
            self.outcomes = outcomes
        }

        /// A marker's trial in a render with `degradations`, numbered `index`.
        init(index: Int, marker: SceneTruth.Marker, tiltDegrees: Double, degradations d: Degradations, outcomes: [String: Outcome]) {
            self.init(index: index, id: marker.id, sidePixels: marker.sidePixels, tiltDegrees: tiltDegrees,
                      noise: d.noise(at: (d.black + d.white) / 2), blur: d.blur, jpeg: d.jpegQuality != nil, outcomes: outcomes)
            if d.motionBlur > 0 { motionBlur = d.motionBlur }
            jpegQuality = d.jpegQuality
        }

        func numbered(_ index: Int) -> Trial {
            var trial = Trial(index: index, id: id, sidePixels: sidePixels, tiltDegrees: tiltDegrees, noise: noise, blur: blur, jpeg: jpeg,
                              outcomes: outcomes)
            (trial.render, trial.motionBlur, trial.jpegQuality, trial.beside, trial.quietZone) = (render, motionBlur, jpegQuality, beside, quietZone)
            return trial
        }
    }

    public var contenders: [Contender]
    public var renders: Int
    public var sampler: any SceneSampler

    public init(contenders: [Contender] = Contender.all, renders: Int, sampler: any SceneSampler) {
        self.contenders = contenders
        self.renders = renders
        self.sampler = sampler
    }

    /// `progress` is called after each render and may throw to stop the run (Ctrl-C). The renders are
    /// sampled in order here and rendered, detected and scored on `jobs` threads, each with its own
    /// renderer; the trials (one per marker) come in render order, the same for any number of jobs but
    /// for the times.
    public mutating func run(jobs: Int = 1, progress: (Int, Int) throws -> Void = { _, _ in }) throws -> [Trial] {
        let renders = renders, contenders = contenders
        var sampler = sampler
        defer { self.sampler = sampler }
        // Renders of one marker each are numbered by their trials.
        let numbersRenders = !(sampler is MarkerSceneSampler)
        var sampled = 0, done = 0
        var trials: [Trial] = []
        typealias State = (renderer: SceneRenderer, sample: SampledScene?, index: Int)
        try OrderedJobs.run(jobs: jobs, makeState: { () -> State in (SceneRenderer(), nil, 0) }, take: { (state: inout State) in
            guard sampled < renders else { return false }
            state.sample = try sampler.nextScene()
            state.index = sampled
            sampled += 1
            return true
        }, work: { (state: inout State) -> [Trial] in
            let sample = state.sample!
            let image = try state.renderer.render(sample.scene)
            let found = try Self.detect(image, with: contenders)
            let outcomes = try Self.score(found, markers: sample.markers.map(\.truth), camera: sample.scene.camera)
            return zip(sample.markers, outcomes).map { marker, outcomes in
                var trial = Trial(index: 0, marker: marker.truth, tiltDegrees: marker.tiltDegrees, degradations: sample.scene.degradations,
                                  outcomes: outcomes)
                (trial.beside, trial.quietZone) = (marker.beside, marker.quietZone)
                if numbersRenders { trial.render = state.index }
                return trial
            }
        }, deliver: { sceneTrials in
            for trial in sceneTrials { trials.append(trial.numbered(trials.count)) }
            done += 1
            try progress(done, renders)
        })
        return trials
    }

    /// The same measurements on the images of a folder `markerkit render` wrote, against its truth.json:
    /// one trial per marker of every image. `progress` may throw to stop the run (Ctrl-C). Images are
    /// read, detected and scored on `jobs` threads; the trials come in the truth file's order.
    public static func run(truth: RenderTruthFile, folder: URL, contenders: [Contender] = Contender.all, jobs: Int = 1,
                           progress: (Int, Int) throws -> Void = { _, _ in }) throws -> [Trial] {
        let scenes = truth.scenes
        var taken = 0
        var trials: [Trial] = []
        var done = 0
        try OrderedJobs.run(jobs: jobs, makeState: { () -> Int in 0 }, take: { (sceneIndex: inout Int) in
            guard taken < scenes.count else { return false }
            sceneIndex = taken
            taken += 1
            return true
        }, work: { (sceneIndex: inout Int) -> [Trial] in
            let scene = scenes[sceneIndex]
            let camera = try truth.calibration(of: scene)
            let image = try GrayImage(contentsOf: folder.appendingPathComponent(scene.file))
            guard image.width == camera.imageWidth, image.height == camera.imageHeight else {
                throw MarkerKitError.badInput("'\(scene.file)' is \(image.width)x\(image.height), the truth's camera \(camera.imageWidth)x\(camera.imageHeight)")
            }
            let found = try detect(image, with: contenders)
            let outcomes = try score(found, markers: scene.markers.map(\.sceneTruth), camera: camera)
            return zip(scene.markers, outcomes).map { marker, outcomes in
                var trial = Trial(index: 0, marker: marker.sceneTruth, tiltDegrees: marker.tiltDegrees, degradations: scene.degradations,
                                  outcomes: outcomes)
                (trial.beside, trial.quietZone) = (marker.beside, marker.quietZone)
                if scene.markers.count > 1 { trial.render = sceneIndex }
                return trial
            }
        }, deliver: { sceneTrials in
            for trial in sceneTrials { trials.append(trial.numbered(trials.count)) }
            done += 1
            try progress(done, scenes.count)
        })
        return trials
    }

    /// Every contender's detections in `image` and its time.
    static func detect(_ image: GrayImage, with contenders: [Contender]) throws -> [String: (detections: [MarkerDetection], seconds: Double)] {
        var found: [String: (detections: [MarkerDetection], seconds: Double)] = [:]
        for contender in contenders {
            let clock = ContinuousClock()
            let start = clock.now
            let detections = try contender.detect(image)
            let elapsed = clock.now - start
            found[contender.name] = (detections, Double(elapsed.components.attoseconds) * 1e-18 + Double(elapsed.components.seconds))
        }
        return found
    }

    /// Every contender's outcome on each marker of one image. A detection within half a side of a
    /// marker's centre is about that marker; detections about no marker are false positives, counted
    /// once per image, on its first marker.
    /// Every contender's outcome on each marker of one image. A detection within half a side of a
    /// marker's centre is about that marker; detections about no marker are false positives, counted
    /// once per image, on its first marker.
    static func score(_ found: [String: (detections: [MarkerDetection], seconds: Double)], markers: [SceneTruth.Marker],
                      camera: CameraCalibration) throws -> [[String: Outcome]] {
        var outcomes = [[String: Outcome]](repeating: [:], count: markers.count)
        for (name, result) in found {
            let near = markers.map { truth in
                let centre = Point2(x: truth.corners.map(\.x).reduce(0, +) / 4, y: truth.corners.map(\.y).reduce(0, +) / 4)
                return result.detections.indices.filter { result.detections[$0].center.distance(to: centre) < max(truth.sidePixels / 2, 3) }
            }
            let aboutNone = result.detections.indices.filter { i in !near.contains { $0.contains(i) } }.count
            for (k, truth) in markers.enumerated() {
                outcomes[k][name] = try score(near[k].map { result.detections[$0] }, truth: truth,
                                              estimator: MarkerPoseEstimator(calibration: camera, side: truth.side),
                                              falsePositives: k == 0 ? aboutNone : 0, seconds: result.seconds)
            }
        }
        return outcomes
    }

    /// One marker's outcome from the detections about it.
    static func score(_ here: [MarkerDetection], truth: SceneTruth.Marker, estimator: MarkerPoseEstimator, falsePositives: Int,
                      seconds: Double) throws -> Outcome {
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
    /// The sampler's profile when not the default one ("phone"), and how many renders the markers were in.
    public var profile: String?
    public var scenes: Int?
    public let overall: [DetectorFigures]
    /// Renders with no noise, blur or JPEG, markers of 50 px side or more: the corner accuracy itself.
    public let cleanLarge: [DetectorFigures]
    public let bySize: Breakdown
    public let byTilt: Breakdown
    public let byNoise: Breakdown
    /// With the phone profile: by optical blur, motion blur, JPEG quality, the print beside the marker
    /// and the paper between them.
    public var byBlur: Breakdown?
    public var byMotion: Breakdown?
    public var byJPEG: Breakdown?
    public var byPrint: Breakdown?
    public var byQuietZone: Breakdown?
    /// For each detector after the first (MarkerKit): markers it read that the first missed, and the
    /// renders they are in.
    public var missedWhereOthersRead: [Misses]?

    public struct Misses: Codable, Sendable {
        public let detector: String
        public let markers: Int
        public let renders: Int
    }

    public init(trials: [MarkerVerification.Trial], detectors: [String], seed: UInt64, width: Int, height: Int, camera: String,
                profile: String? = nil) {
        renders = trials.count
        self.seed = seed
        self.width = width
        self.height = height
        self.camera = camera
        self.profile = profile
        overall = detectors.map { DetectorFigures(detector: $0, trials: trials) }
        let clean = trials.filter { $0.isClean && $0.sidePixels >= 50 }
        cleanLarge = detectors.map { DetectorFigures(detector: $0, trials: clean) }
        bySize = Breakdown(condition: "marker side (px)", edges: [0, 20, 50, 100, 200, 10_000], detectors: detectors, trials: trials,
                           value: \.sidePixels) { $1 > 1000 ? "\(Int($0))+" : "\(Int($0))-\(Int($1))" }
        byTilt = Breakdown(condition: "tilt (degrees)", edges: [0, 15, 30, 45, 60, 90], detectors: detectors, trials: trials,
                           value: \.tiltDegrees) { "\(Int($0))-\(Int($1))" }
        let first = detectors.first
        missedWhereOthersRead = detectors.dropFirst().map { other in
            let missed = trials.filter { $0.outcomes[other]?.found == true && $0.outcomes[first ?? ""]?.found == false }
            return Misses(detector: other, markers: missed.count, renders: Set(missed.map { $0.render ?? $0.index }).count)
        }
        let phone = profile == "phone"
        func g(_ v: Double) -> String { String(format: "%g", v) }
        func range(_ lower: Double, _ upper: Double) -> String { upper > 50 ? "\(g(lower))+" : "\(g(lower))-\(g(upper))" }
        byNoise = Breakdown(condition: "noise (gray levels)", edges: [0, 0.5, 1.5, 3, 6, 100], detectors: detectors, trials: trials,
                            value: \.noise) { lower, upper in
            // The default profile's noise takes these values; the phone's sensor noise any.
            phone ? range(lower, upper)
                  : ["0", "1", "2", "4", "8"][[0, 0.5, 1.5, 3, 6].firstIndex(of: lower) ?? 0]
        }
        guard profile != nil else { return }
        scenes = Set(trials.compactMap(\.render)).count
        byBlur = Breakdown(condition: "optical blur (sigma px)", edges: phone ? [0, 1.5, 2, 3, 100] : [0, 0.001, 0.6, 1, 100], detectors: detectors,
                           trials: trials, value: \.blur) { lower, upper in !phone && lower == 0 ? "none" : range(lower == 0.001 ? 0.3 : lower, upper) }
        guard phone else { return }
        byMotion = Breakdown(condition: "motion blur (px)", edges: [0, 0.001, 3, 6, 100], detectors: detectors, trials: trials,
                             value: { $0.motionBlur ?? 0 }) { lower, upper in lower == 0 ? "none" : range(lower == 0.001 ? 1 : lower, upper) }
        byJPEG = Breakdown(condition: "JPEG quality", edges: [0, 70, 80, 90, 101], detectors: detectors, trials: trials,
                           value: { Double($0.jpegQuality ?? 0) }) { lower, upper in lower == 0 ? "60-69" : "\(Int(lower))-\(Int(upper) - 1)" }
        let kinds: [NearbyPrint?] = [nil] + NearbyPrint.allCases
        byPrint = Breakdown(condition: "print beside", edges: (0...kinds.count).map(Double.init), detectors: detectors, trials: trials,
                            value: { trial in Double(kinds.firstIndex(of: trial.beside) ?? 0) }) { lower, _ in kinds[Int(lower)]?.rawValue ?? "nothing" }
        byQuietZone = Breakdown(condition: "paper to the print (cells)", edges: [0, 0.6, 0.8, 1, 1.25, 100], detectors: detectors,
                                trials: trials.filter { $0.beside != nil }, value: { $0.quietZone ?? 0 }, format: range)
    }

    /// What was measured, the table's first line.
    public var heading: String {
        if let source { return "\(renders) markers in \(source), \(width)x\(height), camera \(camera)" }
        if profile == "phone" {
            return "\(renders) markers in \(scenes ?? 0) renders, phone profile (3024x4032, 2448x3264, portrait and landscape), seed \(seed), camera \(camera)"
        }
        if profile == "touching" {
            return "\(renders) markers in \(scenes ?? 0) renders, touching profile (marker chessboards and tight grids) \(width)x\(height), seed \(seed), camera \(camera)"
        }
        if profile == "cluttered" {
            return "\(renders) markers in \(scenes ?? 0) renders, cluttered profile (markers on cards among text, squares and codes of no dictionary) \(width)x\(height), seed \(seed), camera \(camera)"
        }
        return "\(renders) renders \(width)x\(height), seed \(seed), camera \(camera)"
    }

    /// The results as the table `markerkit verify markers` prints.
    public var table: String {
        func f(_ v: Double?, _ format: String) -> String { v.map { String(format: format, $0) } ?? "-" }
        var lines = [heading, ""]
        lines.append("detector        recall  wrong  false   corner px: P50    P90    max   RMSE   rot° P50  trans% P50  ms P50")
        for d in overall {
            lines.append(d.detector.padding(toLength: 14, withPad: " ", startingAt: 0)
                + String(format: " %6.1f%% %6d %6d", 100 * d.recall, d.wrongIDs, d.falsePositives)
                + "        " + [f(d.cornerP50, "%6.3f"), f(d.cornerP90, "%6.3f"), f(d.cornerMax, "%6.2f"), f(d.cornerRMSE, "%6.3f")].joined(separator: " ")
                + "   " + f(d.rotationP50, "%7.3f") + "   " + f(d.translationP50, "%9.3f") + "  " + f(d.secondsP50.map { $0 * 1000 }, "%6.1f"))
        }
        if let first = overall.first, let missedWhereOthersRead, !missedWhereOthersRead.isEmpty {
            lines.append("")
            lines.append("read by another, missed by \(first.detector): " + missedWhereOthersRead.map {
                "\($0.detector) \($0.markers) markers in \($0.renders) renders" }.joined(separator: ", "))
        }
        // Phone photos are never clean.
        if profile != "phone" {
            lines.append("")
            lines.append("clean renders (no noise, blur or JPEG), side >= 50 px: corner RMSE " + cleanLarge.map {
                "\($0.detector) \(f($0.cornerRMSE, "%.4f")) px (n=\($0.markers))" }.joined(separator: ", "))
        }
        for breakdown in [bySize, byTilt, byNoise] + [byBlur, byMotion, byJPEG, byPrint, byQuietZone].compactMap({ $0 }) {
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

import Foundation

/// One contender's pose figures over a set of frames: recall, rotation error P50 and P90 (degrees),
/// translation error P50 (% of the distance), flips and frames on the mirror side per 1000 frames.
public struct PoseFigures: Codable, Sendable {
    public let contender: String
    public let frames: Int
    public let recall: Double
    public let rotationP50: Double?
    public let rotationP90: Double?
    public let translationP50: Double?
    public let flips: Int
    public let flipsPer1000: Double
    /// Frames whose pose was on the mirror side, per 1000 frames.
    public let mirrorPer1000: Double
    /// How well the predicted sigma matches the true error: the RMS of error / sigma over the frames found
    /// with a sigma and not on the mirror side (1 when the prediction is right), for rotation and
    /// translation; nil for a contender that predicts none.
    public let rotationErrorPerSigma: Double?
    public let translationErrorPerSigma: Double?
    /// Jitter: the RMS of the pose's turn from one still frame to the next (degrees), where the truth holds
    /// still; nil without still frames.
    public let jitter: Double?

    public init(contender: String, trials: [PoseVerification.Trial]) {
        let outcomes = trials.compactMap { $0.outcomes[contender] }
        let found = outcomes.filter(\.found)
        self.contender = contender
        frames = outcomes.count
        recall = outcomes.isEmpty ? 0 : Double(found.count) / Double(outcomes.count)
        let rotations = found.compactMap(\.rotationError).sorted()
        rotationP50 = DetectorFigures.percentile(rotations, 0.5)
        rotationP90 = DetectorFigures.percentile(rotations, 0.9)
        translationP50 = DetectorFigures.percentile(found.compactMap(\.translationError).sorted(), 0.5)
        flips = outcomes.filter(\.flip).count
        let per1000 = outcomes.isEmpty ? 0 : 1000 / Double(outcomes.count)
        flipsPer1000 = Double(flips) * per1000
        mirrorPer1000 = Double(outcomes.filter { $0.side < 0 }.count) * per1000
        func rms(_ values: [Double]) -> Double? { values.isEmpty ? nil : (values.map { $0 * $0 }.reduce(0, +) / Double(values.count)).squareRoot() }
        let predicted = found.filter { $0.side >= 0 }
        rotationErrorPerSigma = rms(predicted.compactMap(\.rotationZ))
        translationErrorPerSigma = rms(predicted.compactMap(\.translationZ))
        jitter = rms(found.compactMap(\.turn))
    }
}

/// A `verify pose` run: the clip's settings, the figures overall, by size, by tilt, moving and still.
public struct PoseVerificationSummary: Codable, Sendable {
    public struct Bucket: Codable, Sendable {
        public let label: String
        public let figures: [PoseFigures]
    }

    public let frames: Int
    /// What the clip shows ("one marker (50 mm)", "a ChArUco board (...)").
    public let subject: String
    public let seed: UInt64
    public let width: Int
    public let height: Int
    public let camera: String
    public let degradations: Degradations
    public let overall: [PoseFigures]
    public let bySize: [Bucket]
    public let byTilt: [Bucket]
    public let byMotion: [Bucket]

    public init(trials: [PoseVerification.Trial], clip: PoseClip) {
        let names = PoseVerification.contenders
        func bucket(_ label: String, _ inside: [PoseVerification.Trial]) -> Bucket {
            Bucket(label: label, figures: names.map { PoseFigures(contender: $0, trials: inside) })
        }
        frames = trials.count
        subject = clip.summary
        seed = clip.seed
        width = clip.camera.imageWidth
        height = clip.camera.imageHeight
        camera = clip.camera.name
        degradations = clip.degradations
        overall = names.map { PoseFigures(contender: $0, trials: trials) }
        bySize = clip.sizes.map { size in bucket("\(size.formatted()) px", trials.filter { $0.sizePixels == size }) }
        let edges = [0.0, 10, 30, 50, 70.001]
        byTilt = zip(edges, edges.dropFirst()).map { lower, upper in
            bucket("\(Int(lower))-\(Int(upper.rounded()))°", trials.filter { $0.tiltDegrees >= lower && $0.tiltDegrees < upper })
        }
        byMotion = [bucket("moving", trials.filter { !$0.still }), bucket("still", trials.filter(\.still))]
    }

    /// The table `markerkit verify pose` prints.
    public var table: String {
        // A missing figure (nothing found) as "-" in the column's width.
        func f(_ v: Double?, _ format: String) -> String {
            let width = Int(format.dropFirst().prefix { $0.isNumber }) ?? 1
            return v.map { String(format: format, $0) } ?? String(repeating: " ", count: max(0, width - 1)) + "-"
        }
        let d = degradations
        var lines = ["\(frames) frames \(width)x\(height) of \(subject), seed \(seed), camera \(camera), "
            + "noise \(d.noise.formatted()), blur \(d.blur.formatted()), JPEG \(d.jpegQuality.map(String.init) ?? "none")", ""]
        let header = "  " + "frames".padding(toLength: 14, withPad: " ", startingAt: 0) + "     n  contender   recall  rot° P50    P90  trans% P50  flips/1000  mirror/1000  err/σ rot trans  jitter°"
        func rows(_ label: String, _ figures: [PoseFigures]) -> [String] {
            figures.enumerated().map { k, p in
                "  " + (k == 0 ? label : "").padding(toLength: 14, withPad: " ", startingAt: 0)
                    + (k == 0 ? String(format: "%6d", p.frames) : "      ") + "  " + p.contender.padding(toLength: 10, withPad: " ", startingAt: 0)
                    + String(format: " %6.1f%%", 100 * p.recall) + "  " + f(p.rotationP50, "%7.3f") + " " + f(p.rotationP90, "%6.3f")
                    + "  " + f(p.translationP50, "%10.2f") + "  " + String(format: "%10.1f", p.flipsPer1000) + "  " + String(format: "%11.1f", p.mirrorPer1000)
                    + "  " + f(p.rotationErrorPerSigma, "%9.2f") + " " + f(p.translationErrorPerSigma, "%5.2f") + "  " + f(p.jitter, "%7.4f")
            }
        }
        lines.append(header)
        lines += rows("all", overall)
        for (title, buckets) in [("by size (side face-on)", bySize), ("by tilt", byTilt), ("moving or held still", byMotion)] {
            lines.append("")
            lines.append(title)
            for b in buckets { lines += rows(b.label, b.figures) }
        }
        return lines.joined(separator: "\n")
    }
}

/// What `verify pose --json` writes: the summary and every frame's outcome.
public struct PoseVerificationReport: Codable, Sendable {
    public let summary: PoseVerificationSummary
    public let trials: [PoseVerification.Trial]

    public init(summary: PoseVerificationSummary, trials: [PoseVerification.Trial]) {
        self.summary = summary
        self.trials = trials
    }
}

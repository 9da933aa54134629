import Foundation

/// Rendered frames for the benchmark: markers spread over a grid, one per cell, sides from 20 px up,
/// tilted up to 40 degrees, with mild noise and blur; or a chessboard in view.
public enum BenchmarkScenes {
    public static func markers(count: Int, width: Int, height: Int, seed: UInt64, dictionary: MarkerDictionary = .arucoOriginal) throws -> Scene {
        let ids = dictionary.usableIDs
        return try markers(count: count, width: width, height: height, seed: seed) { k in
            .marker(id: ids[(k * 37 + Int(seed % 97)) % ids.count], side: 50, margin: 50 / 7 * 1.5, dictionary: dictionary.id)
        }
    }

    /// The same layout with the k-th target's pattern from `pattern` (a 50 mm marker of any code).
    public static func markers(count: Int, width: Int, height: Int, seed: UInt64, pattern: (Int) throws -> TargetPattern) throws -> Scene {
        let camera = BuiltInCamera.webcam(width: width, height: height)
        var random = SeededRandom(seed: seed)
        var targets: [Target] = []
        if count > 0 {
            let columns = max(1, Int((Double(count) * Double(width) / Double(height)).squareRoot().rounded(.up)))
            let rows = (count + columns - 1) / columns
            let cellW = Double(width) / Double(columns), cellH = Double(height) / Double(rows)
            let largest = max(24, min(cellW, cellH) * 0.55)
            for k in 0..<count {
                let side = exp(random.uniform(log(20)...log(largest)))
                let centre = ((Double(k % columns) + 0.5) * cellW, (Double(k / columns) + 0.5) * cellH)
                let pose = try MarkerSceneSampler.pose(camera: camera, at: centre, depth: camera.fx * 50 / side,
                                                       tiltDegrees: random.uniform(0...40), tiltAxis: random.uniform(0...(2 * Double.pi)),
                                                       spin: random.uniform(0...(2 * Double.pi)))
                targets.append(Target(pattern: try pattern(k), pose: pose))
            }
        }
        var d = Degradations()
        d.noise = 2
        d.blur = 0.5
        d.texturedBackground = true
        d.gradient = 0.2
        return Scene(camera: camera, width: width, height: height, targets: targets, degradations: d, seed: random.next())
    }

    /// `frames` webcam frames of `count` markers on cards among clutter (`ClutterSceneSampler`), one seed
    /// per size and count.
    public static func cluttered(count: Int, width: Int, height: Int, frames: Int, dictionary: MarkerDictionary = .arucoOriginal) throws -> [SampledScene] {
        var sampler = ClutterSceneSampler(camera: BuiltInCamera.webcam(width: width, height: height), width: width, height: height,
                                          seed: UInt64(width * 131 + count), dictionary: dictionary)
        sampler.markerCount = count...count
        return try (0..<frames).map { _ in try sampler.nextScene() }
    }

    /// The bench's phone cases: photos of the phone profile (`PhoneSceneSampler`) at one size.
    public enum PhoneCase: String, CaseIterable, Sendable {
        case portrait = "phone 3024x4032 portrait"
        case landscape = "phone 4032x3024 landscape"
        /// Print beside every marker, 0.4 to 1 cell of paper from it.
        case besidePrint = "phone 3024x4032 beside print"
    }

    /// `count` photos of a phone case, with markers of `dictionary`.
    public static func phone(_ phoneCase: PhoneCase, count: Int, dictionary: MarkerDictionary = .arucoOriginal) throws -> [SampledScene] {
        var sampler = PhoneSceneSampler(seed: UInt64(PhoneCase.allCases.firstIndex(of: phoneCase)! + 1), dictionary: dictionary)
        sampler.sizes = phoneCase == .landscape ? [(4032, 3024)] : [(3024, 4032)]
        if phoneCase == .besidePrint {
            sampler.printWeights = [0, 0.4, 0.4, 0.2]
            sampler.quietZones = 0.4...1
        }
        return try (0..<count).map { _ in try sampler.nextScene() }
    }

    /// A 9x6 board (30 mm squares) filling about half the frame width, tilted, in front of a textured
    /// background (a room is not a flat gray wall).
    public static func chessboard(width: Int, height: Int, seed: UInt64) throws -> Scene {
        let camera = BuiltInCamera.webcam(width: width, height: height)
        var verification = try CalibrationVerification(camera: camera, width: width, height: height, views: 1, seed: seed)
        verification.noise = 2
        verification.blur = 0.5
        var scene = try verification.viewScenes()[0]
        scene.degradations.texturedBackground = true
        scene.degradations.gradient = 0.2
        return scene
    }
}

import Foundation
import MarkerKitKernels
import Testing
@testable import MarkerKit

/// The corner refiner's edge profiles and their filter moved into the bridge (mkk_edge_profiles,
/// vectorised) against the Swift code they replace, kept here as the reference: the same points and
/// contrasts to the bit, on the edges of rendered markers from rough and refined corners, and on random
/// edges of noise that run near and past the image's border.
@Suite struct EdgeProfileTests {
    /// CornerRefiner.edgePoints's profiles and their filter, as they were written in Swift.
    static func reference(from a: Point2, to b: Point2, before: Point2, after: Point2, cells: Int, in image: GrayImage) -> (points: [Point2], strengths: [Double]) {
        var points: [Point2] = [], strengths: [Double] = []
        let length = a.distance(to: b)
        guard length >= 4 else { return ([], []) }
        let d = Point2(x: (b.x - a.x) / length, y: (b.y - a.y) / length)
        let n = Point2(x: -d.y, y: d.x)
        let reach = max(2, min(Int(length / 7 * 0.45), 6))
        let samples = min(max(Int(length / 1.5), 12), 60)
        var profile = [Double](repeating: 0, count: 2 * reach + 1)
        let heightA = CornerRefiner.distance(before, toLineThrough: a, b), heightB = CornerRefiner.distance(after, toLineThrough: a, b)
        for k in 0..<samples {
            let t = 0.08 + 0.84 * Double(k) / Double(samples - 1)
            let base = Point2(x: a.x + (b.x - a.x) * t, y: a.y + (b.y - a.y) * t)
            let clearance = Double(reach) + 1.5
            guard CornerRefiner.distance(base, toLineThrough: before, a) > clearance,
                  CornerRefiner.distance(base, toLineThrough: b, after) > clearance else { continue }
            let last = 2 * reach
            for j in 0...last {
                let s = Double(j - reach)
                profile[j] = image.sample(base.x + n.x * s, base.y + n.y * s)
            }
            var light = (profile[0] + profile[1]) / 2
            var dark = (profile[last] + profile[last - 1]) / 2
            var (begin, end) = (0, last)
            if cells > 0 {
                // A thin border: the profile stops 1.5 px short of the code cells, and as far outward.
                let border = ((1 - t) * heightA + t * heightB) / Double(cells)
                let inward = max(1, Int(border - 1.5))
                if inward < reach {
                    (begin, end) = (reach - inward, reach + inward)
                    light = inward >= 2 ? (profile[begin] + profile[begin + 1]) / 2 : profile[begin]
                    dark = inward >= 2 ? (profile[end] + profile[end - 1]) / 2 : profile[end]
                }
            }
            let contrast = light - dark
            guard contrast > 10 else { continue }
            var lightArea = Double(begin)
            for j in begin...end { lightArea += min(1, max(0, (profile[j] - dark) / contrast)) }
            let along = -Double(reach) - 0.5 + lightArea
            points.append(Point2(x: base.x + n.x * along, y: base.y + n.y * along))
            strengths.append(contrast)
        }
        guard points.count >= 4 else { return ([], []) }
        // Weak edge points are dropped: below half the upper median contrast.
        let median = strengths.sorted()[strengths.count / 2]
        let kept = strengths.indices.filter { strengths[$0] >= 0.5 * median }
        return (kept.map { points[$0] }, kept.map { strengths[$0] })
    }

    static func bridge(from a: Point2, to b: Point2, before: Point2, after: Point2, cells: Int, in image: GrayImage) -> (points: [Point2], strengths: [Double]) {
        var edge = [a.x, a.y, b.x, b.y, before.x, before.y, after.x, after.y]
        var points = [Double](repeating: 0, count: 120), strengths = [Double](repeating: 0, count: 60)
        let count = image.pixels.withUnsafeBufferPointer {
            Int(mkk_edge_profiles($0.baseAddress, Int32(image.width), Int32(image.height), Int32(image.width), &edge, Int32(cells), &points, &strengths))
        }
        return ((0..<count).map { Point2(x: points[2 * $0], y: points[2 * $0 + 1]) }, Array(strengths[0..<count]))
    }

    @Test func theBridgeGivesTheSwiftProfilesToTheBit() throws {
        var edges: [(GrayImage, Point2, Point2, Point2, Point2)] = []
        let scene = try BenchmarkScenes.markers(count: 30, width: 1280, height: 720, seed: 12)
        let image = try SceneRenderer().render(scene)
        var random = SeededRandom(seed: 8)
        for marker in try SceneTruth.markers(of: scene) {
            for jitter in [0.0, 0.7, 2.0] {
                let c = marker.corners.map { Point2(x: $0.x + random.uniform(-jitter...jitter), y: $0.y + random.uniform(-jitter...jitter)) }
                for side in 0..<4 { edges.append((image, c[side], c[(side + 1) % 4], c[(side + 3) % 4], c[(side + 2) % 4])) }
            }
        }
        let (w, h) = (90, 70)
        let noise = GrayImage(width: w, height: h, pixels: (0..<(w * h)).map { _ in UInt8(random.uniform(0...255)) })
        for _ in 0..<400 {
            let p = (0..<4).map { _ in Point2(x: random.uniform(-10...100), y: random.uniform(-10...80)) }
            edges.append((noise, p[0], p[1], p[2], p[3]))
        }
        var compared = 0
        for (image, a, b, before, after) in edges {
            // Without the marker's cells, and with them (a thin border's profiles stop inside it).
            for cells in [0, 6, 7] {
                let ours = Self.bridge(from: a, to: b, before: before, after: after, cells: cells, in: image)
                let theirs = Self.reference(from: a, to: b, before: before, after: after, cells: cells, in: image)
                #expect(ours.points == theirs.points && ours.strengths == theirs.strengths, "edge \(a) -> \(b), \(cells) cells")
                compared += theirs.points.count
            }
        }
        #expect(compared > 15000)
    }
}

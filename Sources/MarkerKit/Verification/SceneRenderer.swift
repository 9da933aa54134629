import CVBridge
import Foundation

/// Renders a scene by exact inverse mapping: each sample point of each output pixel is taken back
/// through the lens (iterated to convergence), cast as a ray, intersected with every target plane, and
/// the nearest target's pattern looked up analytically. Pixels whose centre and four corners agree take
/// that value; the others (edges) average 64 samples in an n-rooks pattern, which resolves an
/// axis-aligned edge to 1/128 px. Then lighting, blur, noise and JPEG, each a parameter.
/// Pixel convention as OpenCV: pixel (i, j) is centred on integer coordinates (i, j).
public final class SceneRenderer {
    /// Normalized coordinates of the pixel-corner lattice, cached per camera and size.
    private var lattice: (key: String, xy: [Double])?

    public init() {}

    static let edgeSamples: [(Double, Double)] = (0..<64).map { (k: Int) -> (Double, Double) in
        let x: Double = (Double(k) + 0.5) / 64
        let y: Double = (Double((k * 23) % 64) + 0.5) / 64
        return (x, y)
    }

    public func render(_ scene: Scene) throws -> GrayImage {
        let w = scene.width, h = scene.height
        guard w > 0, h > 0, w <= 8192, h <= 8192 else { throw MarkerKitError.invalidArgument("render size \(w)x\(h) is outside 1-8192") }
        let grid = try latticeFor(scene)
        let planes = scene.targets.map { Plane(target: $0) }
        let d = scene.degradations
        var noiseSource = SeededRandom(seed: scene.seed)
        let texture = d.texturedBackground ? ValueNoise(seed: noiseSource.next()) : nil
        var pixels = [UInt8](repeating: 0, count: w * h)
        let stride = w + 1
        let gx = cos(d.gradientAngle * Double.pi / 180), gy = sin(d.gradientAngle * Double.pi / 180)
        grid.withUnsafeBufferPointer { lattice in
            func albedo(_ nx: Double, _ ny: Double) -> Double {
                var best = -1.0, depth = Double.infinity // -1: background
                for plane in planes {
                    if let (value, z) = plane.hit(nx, ny), z < depth { best = value; depth = z }
                }
                return best
            }
            // Every pixel corner is shared by four pixels: look each up once.
            var cornerAlbedo = [Double](repeating: 0, count: (w + 1) * (h + 1))
            for i in cornerAlbedo.indices { cornerAlbedo[i] = albedo(lattice[2 * i], lattice[2 * i + 1]) }
            for y in 0..<h {
                for x in 0..<w {
                    let c00 = y * stride + x, c10 = c00 + 1, c01 = c00 + stride, c11 = c01 + 1
                    let (x00, y00) = (lattice[2 * c00], lattice[2 * c00 + 1]), (x10, y10) = (lattice[2 * c10], lattice[2 * c10 + 1])
                    let (x01, y01) = (lattice[2 * c01], lattice[2 * c01 + 1]), (x11, y11) = (lattice[2 * c11], lattice[2 * c11 + 1])
                    func point(_ sx: Double, _ sy: Double) -> (Double, Double) {
                        let topX = x00 + (x10 - x00) * sx, topY = y00 + (y10 - y00) * sx
                        let bottomX = x01 + (x11 - x01) * sx, bottomY = y01 + (y11 - y01) * sx
                        return (topX + (bottomX - topX) * sy, topY + (bottomY - topY) * sy)
                    }
                    let background = texture.map { d.background * (0.6 + 0.8 * $0.value(Double(x) / 40, Double(y) / 40)) } ?? d.background
                    func shade(_ a: Double) -> Double { a < 0 ? background : d.black + (d.white - d.black) * a }
                    let a00 = cornerAlbedo[c00]
                    let centre = point(0.5, 0.5)
                    var value: Double
                    if a00 == cornerAlbedo[c10] && a00 == cornerAlbedo[c01] && a00 == cornerAlbedo[c11] && a00 == albedo(centre.0, centre.1) {
                        value = shade(a00)
                    } else {
                        value = 0
                        for (sx, sy) in Self.edgeSamples {
                            let (nx, ny) = point(sx, sy)
                            value += shade(albedo(nx, ny))
                        }
                        value /= Double(Self.edgeSamples.count)
                    }
                    if d.gradient != 0 {
                        value *= 1 + d.gradient * ((Double(x) / Double(w) - 0.5) * gx + (Double(y) / Double(h) - 0.5) * gy)
                    }
                    pixels[y * w + x] = UInt8(max(0, min(255, value.rounded())))
                }
            }
        }
        var image = GrayImage(width: w, height: h, pixels: pixels)
        if d.occlusion > 0 { try occlude(&image, scene: scene, random: &noiseSource) }
        try Degrade.apply(d, to: &image, random: &noiseSource)
        return image
    }

    /// Normalized image coordinates (x/z, y/z) of every pixel corner (i - 0.5, j - 0.5).
    private func latticeFor(_ scene: Scene) throws -> [Double] {
        let c = scene.camera
        let key = "\(c.cameraMatrix)\(c.distortion)\(c.model)\(scene.width)x\(scene.height)"
        if let lattice, lattice.key == key { return lattice.xy }
        var corners = [Double](repeating: 0, count: 2 * (scene.width + 1) * (scene.height + 1))
        var i = 0
        for y in 0...scene.height {
            for x in 0...scene.width {
                corners[i] = Double(x) - 0.5
                corners[i + 1] = Double(y) - 0.5
                i += 2
            }
        }
        var normalized = [Double](repeating: 0, count: corners.count)
        guard cvb_undistort_points(corners, Int32(corners.count / 2), c.cameraMatrix, c.distortion, Int32(c.distortion.count),
                                   c.bridgeModel, &normalized) >= 0 else {
            throw MarkerKitError.internalFailure(String(cString: cvb_last_error()))
        }
        lattice = (key, normalized)
        return normalized
    }

    /// Covers part of each marker with a gray slab from one side.
    private func occlude(_ image: inout GrayImage, scene: Scene, random: inout SeededRandom) throws {
        for marker in try SceneTruth.markers(of: scene) {
            let side = Int(random.uniform(0...3.999))
            let a = marker.corners[side], b = marker.corners[(side + 1) % 4]
            let c = marker.corners[(side + 2) % 4], d = marker.corners[(side + 3) % 4]
            let f = scene.degradations.occlusion
            // The quadrilateral a, b, b + f(c - b), a + f(d - a).
            let quad = [a, b, Point2(x: b.x + f * (c.x - b.x), y: b.y + f * (c.y - b.y)), Point2(x: a.x + f * (d.x - a.x), y: a.y + f * (d.y - a.y))]
            let gray = UInt8(random.uniform(60...200))
            let minX = max(0, Int(quad.map(\.x).min()!)), maxX = min(image.width - 1, Int(quad.map(\.x).max()!) + 1)
            let minY = max(0, Int(quad.map(\.y).min()!)), maxY = min(image.height - 1, Int(quad.map(\.y).max()!) + 1)
            guard minX <= maxX, minY <= maxY else { continue }
            for y in minY...maxY {
                for x in minX...maxX where Self.inside(Point2(x: Double(x), y: Double(y)), quad) {
                    image.pixels[y * image.width + x] = gray
                }
            }
        }
    }

    static func inside(_ p: Point2, _ quad: [Point2]) -> Bool { SceneGeometry.contains(quad, p) }

    /// A target plane as the inverse homography from normalized image coordinates to its own (u, v).
    struct Plane {
        let h: [Double] // row-major 3x3: (u, v, 1) ~ h * (x, y, 1)
        let albedo: PatternAlbedo

        /// Paper is printed on one side: seen from behind, the target shows nothing.
        let facesCamera: Bool

        init(target: Target) {
            let r = target.pose.rotation, t = target.pose.tvec
            // Forward: (x, y, 1) ~ [r1 r2 t] (u, v, 1).
            let m = [r[0], r[1], t[0], r[3], r[4], t[1], r[6], r[7], t[2]]
            h = Plane.invert(m)
            albedo = PatternAlbedo(target.pattern)
            // The camera (the origin) is on the printed side when it lies along the target's front normal:
            // +z for a marker (OpenCV's marker frame), -z for a checkerboard (OpenCV's calibration frame).
            let towardsCamera = -(r[2] * t[0] + r[5] * t[1] + r[8] * t[2])
            switch target.pattern {
            case .marker, .foreignMarker: facesCamera = towardsCamera > 0
            case .checkerboard: facesCamera = towardsCamera < 0
            }
        }

        /// The pattern's value where the ray through (x, y, 1) meets the plane, and the depth there.
        @inline(__always)
        func hit(_ x: Double, _ y: Double) -> (Double, Double)? {
            guard facesCamera else { return nil }
            let w = h[6] * x + h[7] * y + h[8]
            guard w > 0 else { return nil } // behind the camera
            let u = (h[0] * x + h[1] * y + h[2]) / w, v = (h[3] * x + h[4] * y + h[5]) / w
            guard let value = albedo.value(u, v) else { return nil }
            return (value, 1 / w)
        }

        static func invert(_ m: [Double]) -> [Double] {
            let a = m[0], b = m[1], c = m[2], d = m[3], e = m[4], f = m[5], g = m[6], h = m[7], i = m[8]
            let det = a * (e * i - f * h) - b * (d * i - f * g) + c * (d * h - e * g)
            // The exact inverse: with (u, v, 1) = z * inverse * (x, y, 1), the third row gives 1 / z, which is
            // positive exactly for points in front of the camera.
            return [e * i - f * h, c * h - b * i, b * f - c * e,
                    f * g - d * i, a * i - c * g, c * d - a * f,
                    d * h - e * g, b * g - a * h, a * e - b * d].map { $0 / det }
        }
    }
}

/// Smooth value noise for textured backgrounds.
struct ValueNoise {
    let seed: UInt64
    func lattice(_ x: Int, _ y: Int) -> Double {
        var r = SeededRandom(seed: seed ^ (UInt64(bitPattern: Int64(x)) &* 0x9E37_79B1) ^ (UInt64(bitPattern: Int64(y)) &* 0x85EB_CA77))
        return r.unit()
    }
    func value(_ x: Double, _ y: Double) -> Double {
        let x0 = Int(x.rounded(.down)), y0 = Int(y.rounded(.down))
        let fx = x - Double(x0), fy = y - Double(y0)
        let sx = fx * fx * (3 - 2 * fx), sy = fy * fy * (3 - 2 * fy)
        let top = lattice(x0, y0) * (1 - sx) + lattice(x0 + 1, y0) * sx
        let bottom = lattice(x0, y0 + 1) * (1 - sx) + lattice(x0 + 1, y0 + 1) * sx
        return top * (1 - sy) + bottom * sy
    }
}

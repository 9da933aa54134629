import CVBridge
import Foundation

/// Renders a scene by exact inverse mapping: each sample point of each output pixel is taken back
/// through the lens (iterated to convergence), cast as a ray, intersected with every target plane, and
/// the nearest target's pattern looked up analytically. Pixels whose centre and four corners agree take
/// that value; the others (edges) average 64 samples in an n-rooks pattern, which resolves an
/// axis-aligned edge to 1/128 px. Then lighting, blur, noise and JPEG, each a parameter.
/// The image is rendered in tiles of 32x32 pixels: a tile no target's outline (projected through the
/// lens) comes near is background without taking a pixel through the lens, and the others look up only
/// the targets that come near them, so a 12 MP photo with a few markers costs what those markers cover.
/// Pixel convention as OpenCV: pixel (i, j) is centred on integer coordinates (i, j).
public final class SceneRenderer {
    /// Normalized coordinates of the pixel-corner lattice, by camera and image size, then by tile.
    private var lattices: [String: [Int: [Double]]] = [:]
    private var latticePoints = 0
    /// Pixel corners kept at most (16 bytes each); beyond it the kept lattices are dropped.
    static let latticeBudget = 12_000_000
    /// Per camera: the normalized radius up to which the lens maps rays to pixels one to one.
    private var lensRanges: [String: Double] = [:]
    static let tile = 32
    /// Look for targets only in the tiles their outline comes near (off in tests: every target in every
    /// tile, which must give the same image).
    var skipsTilesOutsideTargets = true

    public init() {}

    static let edgeSamples: [(Double, Double)] = (0..<64).map { (k: Int) -> (Double, Double) in
        let x: Double = (Double(k) + 0.5) / 64
        let y: Double = (Double((k * 23) % 64) + 0.5) / 64
        return (x, y)
    }

    public func render(_ scene: Scene) throws -> GrayImage {
        let w = scene.width, h = scene.height
        guard w > 0, h > 0, w <= 8192, h <= 8192 else { throw MarkerKitError.invalidArgument("render size \(w)x\(h) is outside 1-8192") }
        var noiseSource = SeededRandom(seed: scene.seed)
        let view = try TargetsInView(scene, renderer: self)
        let shading = try Shading(scene, texture: scene.degradations.texturedBackground ? ValueNoise(seed: noiseSource.next()) : nil)
        var pixels = [UInt8](repeating: 0, count: w * h)
        let n = Self.tile
        var cornerAlbedo = [Double](repeating: 0, count: (n + 1) * (n + 1))
        try pixels.withUnsafeMutableBufferPointer { out in
            for y0 in stride(from: 0, to: h, by: n) {
                for x0 in stride(from: 0, to: w, by: n) {
                    let tile = Tile(x0: x0, y0: y0, x1: min(w, x0 + n), y1: min(h, y0 + n))
                    try renderTile(tile, view: view, shading: shading, cornerAlbedo: &cornerAlbedo, into: out)
                }
            }
        }
        var image = GrayImage(width: w, height: h, pixels: pixels)
        if scene.degradations.occlusion > 0 { try occlude(&image, scene: scene, random: &noiseSource) }
        try Degrade.apply(scene.degradations, to: &image, random: &noiseSource)
        return image
    }

    /// A tile of the image: pixels x0 ..< x1, y0 ..< y1 (spanning x0 - 0.5 to x1 - 0.5).
    private struct Tile {
        let x0: Int, y0: Int, x1: Int, y1: Int
    }

    /// The scene's targets as planes, with the box each covers in the image (nil: not bounded, looked at
    /// in every tile), and whether the lens folds back within the image.
    private struct TargetsInView {
        let camera: CameraCalibration
        let key: String
        let planes: [Plane]
        let boxes: [Box?]
        /// A lens model that folds back within the image (k1 = -0.4 on a wide sensor) leaves pixels no ray
        /// reaches: they are black, as beyond a real lens's image circle, so every tile is looked at.
        let folds: Bool
        let width: Int

        init(_ scene: Scene, renderer: SceneRenderer) throws {
            let c = scene.camera
            camera = c
            width = scene.width
            key = "\(c.cameraMatrix)\(c.distortion)\(c.model)\(scene.width)x\(scene.height)"
            folds = try renderer.lensRange(c, key: key) < SceneRenderer.lensRangeLimit
            let planes = scene.targets.map { Plane(target: $0) }
            self.planes = planes
            let key = key
            boxes = try zip(scene.targets, planes).map {
                renderer.skipsTilesOutsideTargets ? try renderer.imageBox(of: $0, extent: $1.albedo.extent, camera: c, key: key) : nil
            }
        }

        /// The planes whose box comes near the tile.
        func near(_ t: Tile) -> [Plane] {
            planes.indices.filter { i in
                boxes[i].map { $0.maxX >= Double(t.x0) - 0.5 && $0.minX <= Double(t.x1) - 0.5
                    && $0.maxY >= Double(t.y0) - 0.5 && $0.minY <= Double(t.y1) - 0.5 } ?? true
            }.map { planes[$0] }
        }
    }

    /// From albedo to gray level: the target's black and white, the background (textured or not), the
    /// gradient and the light map, rounded to 8 bits.
    private struct Shading {
        let d: Degradations
        let texture: ValueNoise?
        let light: [Float]?
        let width: Int, height: Int
        let gx: Double, gy: Double

        init(_ scene: Scene, texture: ValueNoise?) throws {
            d = scene.degradations
            self.texture = texture
            width = scene.width
            height = scene.height
            light = try LightMap.make(d, width: width, height: height)
            gx = cos(d.gradientAngle * Double.pi / 180)
            gy = sin(d.gradientAngle * Double.pi / 180)
        }

        func background(_ x: Int, _ y: Int) -> Double {
            texture.map { d.background * (0.6 + 0.8 * $0.value(Double(x) / 40, Double(y) / 40)) } ?? d.background
        }

        /// An albedo's gray before lighting: -2 no ray (black), -1 background, else between the target's
        /// black and white.
        func shade(_ a: Double, _ x: Int, _ y: Int) -> Double { a == -2 ? 0 : a < 0 ? background(x, y) : d.black + (d.white - d.black) * a }

        func pixel(_ shaded: Double, _ x: Int, _ y: Int) -> UInt8 {
            var value = shaded
            if d.gradient != 0 {
                value *= 1 + d.gradient * ((Double(x) / Double(width) - 0.5) * gx + (Double(y) / Double(height) - 0.5) * gy)
            }
            if let light { value *= Double(light[y * width + x]) }
            return UInt8(max(0, min(255, value.rounded())))
        }
    }

    /// One tile: background alone where no target comes near (and the lens does not fold); else each
    /// pixel corner taken through the lens once, a pixel whose centre and corners agree shaded as one, an
    /// edge pixel averaged over `edgeSamples`.
    private func renderTile(_ t: Tile, view: TargetsInView, shading: Shading, cornerAlbedo: inout [Double],
                            into out: UnsafeMutableBufferPointer<UInt8>) throws {
        let w = view.width
        let near = view.near(t)
        guard !near.isEmpty || view.folds else {
            for y in t.y0..<t.y1 { for x in t.x0..<t.x1 { out[y * w + x] = shading.pixel(shading.background(x, y), x, y) } }
            return
        }
        let lattice = try tileLattice(key: view.key, camera: view.camera, x0: t.x0, y0: t.y0, x1: t.x1, y1: t.y1, imageWidth: w, folds: view.folds)
        lattice.withUnsafeBufferPointer { lattice in
            func albedo(_ nx: Double, _ ny: Double) -> Double {
                if nx.isNaN { return -2 } // no ray: beyond the lens's image
                var best = -1.0, depth = Double.infinity // -1: background
                for plane in near {
                    if let (value, z) = plane.hit(nx, ny), z < depth { best = value; depth = z }
                }
                return best
            }
            // Every pixel corner is shared by four pixels: look each up once.
            let stride = t.x1 - t.x0 + 1
            for i in 0..<(stride * (t.y1 - t.y0 + 1)) { cornerAlbedo[i] = albedo(lattice[2 * i], lattice[2 * i + 1]) }
            for y in t.y0..<t.y1 {
                for x in t.x0..<t.x1 {
                    let c00 = (y - t.y0) * stride + x - t.x0, c10 = c00 + 1, c01 = c00 + stride, c11 = c01 + 1
                    let (x00, y00) = (lattice[2 * c00], lattice[2 * c00 + 1]), (x10, y10) = (lattice[2 * c10], lattice[2 * c10 + 1])
                    let (x01, y01) = (lattice[2 * c01], lattice[2 * c01 + 1]), (x11, y11) = (lattice[2 * c11], lattice[2 * c11 + 1])
                    func point(_ sx: Double, _ sy: Double) -> (Double, Double) {
                        let topX = x00 + (x10 - x00) * sx, topY = y00 + (y10 - y00) * sx
                        let bottomX = x01 + (x11 - x01) * sx, bottomY = y01 + (y11 - y01) * sx
                        return (topX + (bottomX - topX) * sy, topY + (bottomY - topY) * sy)
                    }
                    let a00 = cornerAlbedo[c00]
                    let centre = point(0.5, 0.5)
                    var value: Double
                    if a00 == cornerAlbedo[c10] && a00 == cornerAlbedo[c01] && a00 == cornerAlbedo[c11] && a00 == albedo(centre.0, centre.1) {
                        value = shading.shade(a00, x, y)
                    } else {
                        value = 0
                        for (sx, sy) in Self.edgeSamples {
                            let (nx, ny) = point(sx, sy)
                            value += shading.shade(albedo(nx, ny), x, y)
                        }
                        value /= Double(Self.edgeSamples.count)
                    }
                    out[y * w + x] = shading.pixel(value, x, y)
                }
            }
        }
    }

    /// Normalized image coordinates (x/z, y/z) of the pixel corners (i - 0.5, j - 0.5) of a tile, i from
    /// x0 to x1 and j from y0 to y1, row by row; kept for the next render through the same camera. With a
    /// lens that `folds`, a corner no ray projects to (projecting its undistorted point lands more than
    /// 0.01 px away, or only a ray beyond the lens's one-to-one range does) is NaN.
    private func tileLattice(key: String, camera c: CameraCalibration, x0: Int, y0: Int, x1: Int, y1: Int, imageWidth: Int,
                             folds: Bool) throws -> [Double] {
        let index = (y0 / Self.tile) * (imageWidth / Self.tile + 1) + x0 / Self.tile
        if let kept = lattices[key]?[index] { return kept }
        var corners: [Double] = []
        corners.reserveCapacity(2 * (x1 - x0 + 1) * (y1 - y0 + 1))
        for y in y0...y1 {
            for x in x0...x1 {
                corners.append(Double(x) - 0.5)
                corners.append(Double(y) - 0.5)
            }
        }
        var normalized = [Double](repeating: 0, count: corners.count)
        try Bridge.check(cvb_undistort_points(corners, Int32(corners.count / 2), c.cameraMatrix, c.distortion, Int32(c.distortion.count),
                                              c.bridgeModel, &normalized))
        if folds {
            let rays = (0..<(corners.count / 2)).map { (normalized[2 * $0], normalized[2 * $0 + 1], 1.0) }
            let back = try SceneTruth.project(rays, pose: Pose3D(rvec: [0, 0, 0], tvec: [0, 0, 0]), camera: c)
            let range = try lensRange(c, key: key)
            for (i, p) in back.enumerated() where !(p.distance(to: Point2(x: corners[2 * i], y: corners[2 * i + 1])) <= 0.01)
                || (rays[i].0 * rays[i].0 + rays[i].1 * rays[i].1).squareRoot() >= range {
                normalized[2 * i] = .nan
                normalized[2 * i + 1] = .nan
            }
        }
        if latticePoints + corners.count / 2 > Self.latticeBudget {
            lattices = [:]
            latticePoints = 0
        }
        lattices[key, default: [:]][index] = normalized
        latticePoints += corners.count / 2
        return normalized
    }

    /// Pixels, OpenCV's convention.
    struct Box { let minX, minY, maxX, maxY: Double }

    /// Where a target can show in the image: the box around its outline (32 points a side) projected
    /// through the lens, 2 px wider; or nil (anywhere) when that cannot be trusted: part of the outline
    /// behind the camera, or beyond the radius up to which the lens maps rays to pixels one to one.
    private func imageBox(of target: Target, extent e: (minU: Double, maxU: Double, minV: Double, maxV: Double),
                          camera: CameraCalibration, key: String) throws -> Box? {
        let steps = 32
        var outline: [(Double, Double, Double)] = []
        for k in 0..<steps {
            let t = Double(k) / Double(steps)
            outline += [(e.minU + t * (e.maxU - e.minU), e.minV), (e.maxU, e.minV + t * (e.maxV - e.minV)),
                        (e.maxU - t * (e.maxU - e.minU), e.maxV), (e.minU, e.maxV - t * (e.maxV - e.minV))].map(target.surfacePoint)
        }
        let r = target.pose.rotation, p = target.pose.tvec
        let distance = (p[0] * p[0] + p[1] * p[1] + p[2] * p[2]).squareRoot()
        var radius = 0.0
        for (u, v, w) in outline {
            let x = r[0] * u + r[1] * v + r[2] * w + p[0], y = r[3] * u + r[4] * v + r[5] * w + p[1], z = r[6] * u + r[7] * v + r[8] * w + p[2]
            guard z > 1e-6 * max(distance, 1) else { return nil }
            radius = max(radius, (x * x + y * y).squareRoot() / z)
        }
        guard radius < (try lensRange(camera, key: key)) else { return nil }
        let points = try SceneTruth.project(outline, pose: target.pose, camera: camera)
        return Box(minX: points.map(\.x).min()! - 2, minY: points.map(\.y).min()! - 2,
                   maxX: points.map(\.x).max()! + 2, maxY: points.map(\.y).max()! + 2)
    }

    /// The normalized radius (at most 4, 76 degrees off the axis) up to which the lens model sends rays
    /// farther out to pixels farther out, in eight directions: within it the projection of a target's
    /// outline encloses the target.
    private func lensRange(_ camera: CameraCalibration, key: String) throws -> Double {
        if let range = lensRanges[key] { return range }
        let range = try Self.lensRange(camera)
        lensRanges[key] = range
        return range
    }

    static let lensRangeLimit = 4.0

    static func lensRange(_ camera: CameraCalibration) throws -> Double {
        let steps = 400, limit = lensRangeLimit
        var range = limit
        for k in 0..<8 {
            let a = Double(k) * Double.pi / 4
            let ray = (0...steps).map { i in (limit * Double(i) / Double(steps) * cos(a), limit * Double(i) / Double(steps) * sin(a), 1.0) }
            let pixels = try SceneTruth.project(ray, pose: Pose3D(rvec: [0, 0, 0], tvec: [0, 0, 0]), camera: camera)
            var last = 0.0
            for i in 1...steps {
                let out = pixels[i].distance(to: pixels[0])
                guard out.isFinite, out > last else { range = min(range, limit * Double(i - 1) / Double(steps)); break }
                last = out
            }
        }
        return range
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

    /// A target plane as the inverse homography from normalized image coordinates to its own (u, v); a
    /// bent target as the cylinder it lies on.
    struct Plane {
        let h: [Double] // row-major 3x3: (u, v, 1) ~ h * (x, y, 1)
        let albedo: PatternAlbedo
        /// Bent targets: curvature, the u of the line they roll about, the camera's centre and the
        /// rotation's transpose (camera to target frame).
        let curvature: Double, bendAxis: Double
        let origin: (Double, Double, Double)
        let toTarget: [Double]

        /// Paper is printed on one side: seen from behind, the target shows nothing.
        let facesCamera: Bool

        init(target: Target) {
            let r = target.pose.rotation, t = target.pose.tvec
            // Forward: (x, y, 1) ~ [r1 r2 t] (u, v, 1).
            let m = [r[0], r[1], t[0], r[3], r[4], t[1], r[6], r[7], t[2]]
            h = Plane.invert(m)
            albedo = PatternAlbedo(target.pattern)
            curvature = target.curvature
            bendAxis = target.bendAxis
            toTarget = [r[0], r[3], r[6], r[1], r[4], r[7], r[2], r[5], r[8]]
            origin = (-(r[0] * t[0] + r[3] * t[1] + r[6] * t[2]), -(r[1] * t[0] + r[4] * t[1] + r[7] * t[2]), -(r[2] * t[0] + r[5] * t[1] + r[8] * t[2]))
            // The camera (the origin) is on the printed side when it lies along the target's front normal:
            // +z for a marker (OpenCV's marker frame) and print beside it, -z for a checkerboard or a ChArUco
            // board (OpenCV's calibration frame).
            let towardsCamera = -(r[2] * t[0] + r[5] * t[1] + r[8] * t[2])
            switch target.pattern {
            case .marker, .foreignMarker, .patches, .text, .paper: facesCamera = towardsCamera > 0
            case .checkerboard, .charuco: facesCamera = towardsCamera < 0
            }
        }

        /// The pattern's value where the ray through (x, y, 1) meets the plane, and the depth there.
        @inline(__always)
        func hit(_ x: Double, _ y: Double) -> (Double, Double)? {
            guard facesCamera else { return nil }
            if curvature != 0 { return bentHit(x, y) }
            let w = h[6] * x + h[7] * y + h[8]
            guard w > 0 else { return nil } // behind the camera
            let u = (h[0] * x + h[1] * y + h[2]) / w, v = (h[3] * x + h[4] * y + h[5]) / w
            guard let value = albedo.value(u, v) else { return nil }
            return (value, 1 / w)
        }

        /// The ray (x, y, 1) against the cylinder (u - axis)^2 + (z - 1/k)^2 = 1/k^2 of the target frame,
        /// on its branch through the pattern (cos(k s) > 0); the depth is the ray's parameter.
        private func bentHit(_ x: Double, _ y: Double) -> (Double, Double)? {
            let m = toTarget, k = curvature, rho = 1 / k
            let dx = m[0] * x + m[1] * y + m[2], dy = m[3] * x + m[4] * y + m[5], dz = m[6] * x + m[7] * y + m[8]
            let a = origin.0 - bendAxis, oz = origin.2
            let qa = dx * dx + dz * dz, qb = 2 * (a * dx + (oz - rho) * dz), qc = a * a + oz * oz - 2 * oz * rho
            let disc = qb * qb - 4 * qa * qc
            guard disc >= 0, qa > 0 else { return nil }
            let q = -(qb + (qb >= 0 ? 1 : -1) * disc.squareRoot()) / 2
            guard q != 0 else { return nil }
            let roots = [q / qa, qc / q].filter { $0 > 0 }.sorted()
            for lambda in roots {
                let px = origin.0 + lambda * dx, py = origin.1 + lambda * dy, pz = oz + lambda * dz
                let cosine = 1 - k * pz
                guard cosine > 0 else { continue }
                let u = bendAxis + atan2(k * (px - bendAxis), cosine) / k
                guard let value = albedo.value(u, py) else { return nil }
                return (value, lambda)
            }
            return nil
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

import Foundation
import Testing
@testable import MarkerKit

/// What a phone camera adds to a render, each doing what its parameter says.
@Suite struct PhoneDegradationTests {
    static let pinhole = try! CameraCalibration(name: "ideal", model: .pinhole, cameraMatrix: [400, 0, 159.5, 0, 400, 119.5, 0, 0, 1],
                                                distortion: [], imageWidth: 320, imageHeight: 240)

    /// A render of nothing but a flat background of `level`.
    static func flat(_ level: Double, _ change: (inout Degradations) -> Void) throws -> GrayImage {
        var d = Degradations()
        d.background = level
        change(&d)
        return try SceneRenderer().render(Scene(camera: pinhole, width: 320, height: 240, targets: [], degradations: d))
    }

    @Test func vignettingDarkensTheCornersByTheSetFraction() throws {
        let image = try Self.flat(200) { $0.vignetting = 0.3 }
        for (x, y) in [(0, 0), (319, 0), (0, 239), (319, 239)] { #expect(image[x, y] == 140, "corner (\(x), \(y))") }
        // Pixels (159, 119) and (160, 120) are half a pixel from the centre.
        #expect(image[159, 119] == 200 && image[160, 120] == 200)
        // Halfway to the corner: the cos⁴ law's shape, 1 / (1 + a/4)² with (1 + a)² = 1 / 0.7.
        let a = 1 / 0.7.squareRoot() - 1
        #expect(abs(Double(image[80, 60]) - 200 / ((1 + a / 4) * (1 + a / 4))) <= 1)
        // Falling all the way from the centre to the corner.
        let diagonal = (0...119).map { image[159 - Int(Double($0) * 159 / 119), 119 - $0] }
        #expect(zip(diagonal, diagonal.dropFirst()).allSatisfy { $0 >= $1 })
    }

    @Test func aShadowTakesItsDarknessInsideWithASoftEdge() throws {
        // Everything left of x = 100.
        let shadow = Shadow(polygon: [Point2(x: -1000, y: -1000), Point2(x: 100, y: -1000), Point2(x: 100, y: 1000), Point2(x: -1000, y: 1000)],
                            darkness: 0.4, softness: 6)
        let image = try Self.flat(200) { $0.shadows = [shadow] }
        #expect(image[20, 120] == 120 && image[300, 120] == 200)
        #expect(abs(Int(image[100, 120]) - 160) <= 2, "half the darkness on the edge: \(image[100, 120])")
        let row = (60...140).map { image[$0, 120] }
        #expect(zip(row, row.dropFirst()).allSatisfy { $0 <= $1 })
        // The edge is as soft as asked: from 10% to 90% of the step over 2.56 standard deviations.
        let rise = row.filter { $0 > 128 && $0 < 192 }.count
        #expect(abs(Double(rise) - 2.56 * 6) <= 2.5, "\(rise) px from 10% to 90%")
        // Hard edge: one pixel between.
        let hard = try Self.flat(200) { $0.shadows = [Shadow(polygon: shadow.polygon, darkness: 0.4, softness: 0)] }
        #expect(hard[98, 120] == 120 && hard[102, 120] == 200)
    }

    /// A point of light smeared by motion blur: its light lies along the set angle, spread as far as set.
    @Test(arguments: [0.0, 30.0, 90.0, 135.0])
    func motionBlurSpreadsAPointAlongTheAngle(angle: Double) throws {
        var pixels = [UInt8](repeating: 0, count: 81 * 81)
        pixels[40 * 81 + 40] = 255
        var image = GrayImage(width: 81, height: 81, pixels: pixels)
        var d = Degradations()
        d.motionBlur = 12
        d.motionBlurAngle = angle
        var random = SeededRandom(seed: 1)
        try Degrade.apply(d, to: &image, random: &random)
        // Second moments of the light about the point.
        var total = 0.0, xx = 0.0, yy = 0.0, xy = 0.0, mx = 0.0, my = 0.0
        for y in 0..<81 { for x in 0..<81 {
            let v = Double(image[x, y]), dx = Double(x - 40), dy = Double(y - 40)
            total += v; mx += v * dx; my += v * dy; xx += v * dx * dx; yy += v * dy * dy; xy += v * dx * dy
        } }
        #expect(abs(mx / total) < 0.2 && abs(my / total) < 0.2, "centred")
        let (a, b, c) = (xx / total, yy / total, xy / total)
        let spread = (a + b) / 2 + (((a - b) / 2) * ((a - b) / 2) + c * c).squareRoot()
        let across = (a + b) / 2 - (((a - b) / 2) * ((a - b) / 2) + c * c).squareRoot()
        var direction = atan2(2 * c, a - b) / 2 * 180 / Double.pi
        if direction < 0 { direction += 180 }
        #expect(abs(direction - angle) < 2, "light along \(direction)°")
        // A uniform segment of length L has variance L²/12 (plus the pixels' own 1/12 and the bilinear spread).
        #expect(abs((12 * spread).squareRoot() - 12) < 1, "length \((12 * spread).squareRoot()) px")
        #expect(across < 0.3, "spread across: \(across)")
    }

    @Test func sensorNoiseIsLargerInTheDark() throws {
        var pixels = [UInt8](repeating: 30, count: 200 * 200)
        for y in 0..<200 { for x in 100..<200 { pixels[y * 200 + x] = 220 } }
        let sensor = SensorNoise(electrons: 2000, readNoise: 3)
        func noisy(seed: UInt64) throws -> GrayImage {
            var image = GrayImage(width: 200, height: 200, pixels: pixels)
            try sensor.apply(to: &image, seed: seed)
            return image
        }
        let image = try noisy(seed: 5)
        func spread(_ xs: Range<Int>) -> (mean: Double, sigma: Double) {
            let values = (0..<200).flatMap { y in xs.map { Double(image[$0, y]) } }
            let mean = values.reduce(0, +) / Double(values.count)
            return (mean, (values.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(values.count)).squareRoot())
        }
        let dark = spread(0..<100), bright = spread(100..<200)
        print(String(format: "measured: sensor noise (2000 e-, read 3 e-) at gray 30: sigma %.2f (model %.2f), at 220: %.2f (model %.2f)",
                     dark.sigma, sensor.sigma(at: 30), bright.sigma, sensor.sigma(at: 220)))
        #expect(dark.sigma > 1.5 * bright.sigma)
        #expect(abs(dark.sigma / sensor.sigma(at: 30) - 1) < 0.15 && abs(bright.sigma / sensor.sigma(at: 220) - 1) < 0.15)
        #expect(abs(dark.mean - 30) < 1 && abs(bright.mean - 220) < 1)
        // Less light, more noise; the same seed, the same noise.
        #expect(SensorNoise(electrons: 300, readNoise: 3).sigma(at: 120) > 2 * sensor.sigma(at: 120))
        #expect(try noisy(seed: 5).pixels == image.pixels && noisy(seed: 6).pixels != image.pixels)
    }

    @Test func degradationsWrittenBeforeThePhoneReadAsOff() throws {
        let old = #"{"black": 30, "white": 225, "gradient": 0.1, "gradient_angle": 40, "noise": 2, "blur": 0.5, "jpeg_quality": 80, "occlusion": 0, "textured_background": true, "background": 110}"#
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        let d = try decoder.decode(Degradations.self, from: Data(old.utf8))
        #expect(d.noise == 2 && d.jpegQuality == 80 && d.texturedBackground)
        #expect(d.vignetting == 0 && d.shadows.isEmpty && d.motionBlur == 0 && d.sensorNoise == nil)
        // Written as before when off; every field back when on.
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        let plain = String(decoding: try encoder.encode(d), as: UTF8.self)
        #expect(!plain.contains("vignetting") && !plain.contains("shadows") && !plain.contains("motion") && !plain.contains("sensor"))
        var phone = d
        phone.vignetting = 0.2
        phone.shadows = [Shadow(polygon: [Point2(x: 0, y: 0), Point2(x: 10, y: 0), Point2(x: 0, y: 10)], darkness: 0.3, softness: 5)]
        phone.motionBlur = 4
        phone.motionBlurAngle = 30
        phone.sensorNoise = SensorNoise(electrons: 800, readNoise: 3)
        #expect(try decoder.decode(Degradations.self, from: encoder.encode(phone)) == phone)
    }
}

import CVBridge
import Foundation

/// Noise as a phone's sensor makes it: shot noise (each pixel counts electrons, a Poisson count whose
/// spread is its square root) and read noise, in linear light, seen through the camera's tone curve
/// (gray = 255 · linear^(1/2.2)), which stretches the dark levels and their noise with them. So the
/// noise in gray levels grows towards the dark, and grows everywhere when there is little light (few
/// electrons: the camera turns the gain up).
public struct SensorNoise: Sendable, Equatable, Codable {
    /// Electrons a pixel collects at full white (gray 255): about 300 in a dim room, 20000 in daylight.
    public var electrons: Double
    /// Read noise, electrons.
    public var readNoise: Double

    /// The tone curve's exponent.
    public static let gamma = 2.2

    public init(electrons: Double, readNoise: Double) {
        self.electrons = electrons
        self.readNoise = readNoise
    }

    public var isValid: Bool { electrons.isFinite && electrons > 0 && readNoise.isFinite && readNoise >= 0 }

    /// Standard deviation in gray levels at `level` (0-255), through the slope of the tone curve there.
    public func sigma(at level: Double) -> Double {
        let linear = pow(max(level, 1) / 255, Self.gamma)
        let spread = (linear * electrons + readNoise * readNoise).squareRoot() / electrons
        return spread * 255 / Self.gamma * pow(linear, 1 / Self.gamma - 1)
    }

    func apply(to image: inout GrayImage, seed: UInt64) throws {
        let (w, h) = (Int32(image.width), Int32(image.height))
        let status = image.pixels.withUnsafeMutableBufferPointer {
            cvb_sensor_noise($0.baseAddress, w, h, w, electrons, readNoise, Self.gamma, seed)
        }
        try Bridge.check(status)
    }
}

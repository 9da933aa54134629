/// Light falling off towards the image corners, as through a real lens: the shape of the cos⁴ law,
/// 1 / (1 + a ρ²)², where ρ is the distance from the image centre over the distance to a corner pixel and
/// `a` is chosen so that the corner pixels keep 1 - strength of the light.
enum Vignetting {
    /// Multiplies `light` (width x height factors) by the falloff of `strength` (0-1).
    static func darken(_ light: inout [Float], strength: Double, width: Int, height: Int) {
        guard strength > 0 else { return }
        let cx = Double(width - 1) / 2, cy = Double(height - 1) / 2
        let corner = cx * cx + cy * cy
        guard corner > 0 else { return }
        let a = 1 / (1 - min(strength, 0.999_999)).squareRoot() - 1
        for y in 0..<height {
            let dy = Double(y) - cy
            for x in 0..<width {
                let dx = Double(x) - cx
                let f = 1 + a * (dx * dx + dy * dy) / corner
                light[y * width + x] *= Float(1 / (f * f))
            }
        }
    }
}

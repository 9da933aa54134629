/// The light on each pixel from what a phone adds to the scene's lighting (vignetting and shadows),
/// multiplied into the rendered value before the camera's blur, noise and JPEG.
enum LightMap {
    /// width x height factors, or nil when neither is set (the value is then left as it is).
    static func make(_ d: Degradations, width: Int, height: Int) throws -> [Float]? {
        guard d.vignetting > 0 || d.shadows.contains(where: { $0.darkness > 0 }) else { return nil }
        var light = [Float](repeating: 1, count: width * height)
        Vignetting.darken(&light, strength: d.vignetting, width: width, height: height)
        for shadow in d.shadows { try shadow.darken(&light, width: width, height: height) }
        return light
    }
}

/// Stage 6: the gray level that best splits an unwarped square into dark and light (Otsu's method),
/// and the contrast of the data area inside the border, so that flat squares can be refused (a flat
/// data area cannot hold a code: every row would be 00000 or 11111).
public enum Otsu {
    public struct Split: Sendable {
        /// Pixels above this are light.
        public let threshold: Int
        /// Standard deviation of the gray values.
        public let contrast: Double
    }

    /// `border` pixels on each side are left out of the contrast (the marker's black ring).
    public static func split(_ image: GrayImage, border: Int) -> Split {
        // Counts and sums in integers: the same values the sums of doubles had (all exact below 2^53),
        // without a conversion per pixel.
        var histogram = InlineArray<256, Int>(repeating: 0)
        var innerSum = 0, innerSquares = 0, innerCount = 0
        image.pixels.withUnsafeBufferPointer { pixels in
            for p in pixels { histogram[Int(p)] += 1 }
            for y in border..<max(border, image.height - border) {
                let row = y * image.width
                for x in border..<max(border, image.width - border) {
                    let v = Int(pixels[row + x])
                    innerSum += v; innerSquares += v * v
                }
                innerCount += max(0, image.width - 2 * border)
            }
        }
        let total = Double(image.pixels.count)
        var sum = 0.0
        for level in 0..<256 { sum += Double(level * histogram[level]) }
        let count = max(Double(innerCount), 1)
        let innerMean = Double(innerSum) / count
        let variance = max(0, Double(innerSquares) / count - innerMean * innerMean)
        var best = 0, bestBetween = -1.0
        var weightDark = 0.0, sumDark = 0.0
        for level in 0..<256 {
            weightDark += Double(histogram[level])
            sumDark += Double(level * histogram[level])
            let weightLight = total - weightDark
            guard weightDark > 0, weightLight > 0 else { continue }
            let meanDark = sumDark / weightDark, meanLight = (sum - sumDark) / weightLight
            let between = weightDark * weightLight * (meanDark - meanLight) * (meanDark - meanLight)
            if between > bestBetween { bestBetween = between; best = level }
        }
        return Split(threshold: best, contrast: variance.squareRoot())
    }
}

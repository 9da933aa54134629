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
            // Four partial histograms, so that runs of one gray level do not wait on one counter. Counts
            // and sums cannot overflow (a square has a few thousand pixels): wrapping arithmetic, without
            // a check per pixel, lets the sums vectorise.
            var partial = InlineArray<1024, Int32>(repeating: 0)
            var i = 0
            while i + 4 <= pixels.count {
                partial[Int(pixels[i])] &+= 1
                partial[256 + Int(pixels[i + 1])] &+= 1
                partial[512 + Int(pixels[i + 2])] &+= 1
                partial[768 + Int(pixels[i + 3])] &+= 1
                i += 4
            }
            while i < pixels.count { partial[Int(pixels[i])] &+= 1; i += 1 }
            for level in 0..<256 { histogram[level] = Int(partial[level] &+ partial[256 + level] &+ partial[512 + level] &+ partial[768 + level]) }
            let inner = max(0, image.width - 2 * border)
            for y in border..<max(border, image.height - border) {
                var rowSum: UInt32 = 0, rowSquares: UInt32 = 0 // at most a row of 255s and their squares
                for v in UnsafeBufferPointer(rebasing: pixels[(y * image.width + border)..<(y * image.width + border + inner)]) {
                    rowSum &+= UInt32(v); rowSquares &+= UInt32(v) &* UInt32(v)
                }
                innerSum += Int(rowSum); innerSquares += Int(rowSquares)
                innerCount += inner
            }
        }
        let total = Double(image.pixels.count)
        var sum = 0.0
        for level in 0..<256 { sum += Double(level &* histogram[level]) }
        let count = max(Double(innerCount), 1)
        let innerMean = Double(innerSum) / count
        let variance = max(0, Double(innerSquares) / count - innerMean * innerMean)
        var best = 0, bestBetween = -1.0
        var weightDark = 0.0, sumDark = 0.0
        for level in 0..<256 {
            // An empty level changes nothing: its split is the previous level's, which cannot beat itself.
            guard histogram[level] > 0 else { continue }
            weightDark += Double(histogram[level])
            sumDark += Double(level &* histogram[level])
            let weightLight = total - weightDark
            guard weightDark > 0, weightLight > 0 else { continue }
            let meanDark = sumDark / weightDark, meanLight = (sum - sumDark) / weightLight
            let between = weightDark * weightLight * (meanDark - meanLight) * (meanDark - meanLight)
            if between > bestBetween { bestBetween = between; best = level }
        }
        return Split(threshold: best, contrast: variance.squareRoot())
    }
}

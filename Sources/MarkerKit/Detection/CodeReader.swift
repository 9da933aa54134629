/// Stage 8: a sampled grid read as a marker: the border checked, the 5x5 code looked up in all four
/// orientations, and the corners put in the marker's own order (top-left, top-right, bottom-right,
/// bottom-left as printed), as OpenCV's aruco gives them.
public enum CodeReader {
    public static func read(cells: [Bool], quad: Quad, dictionary: MarkerDictionary,
                            parameters: DetectorParameters) -> MarkerDetection? {
        read(data: CellSampler.data(cells), borderErrors: CellSampler.borderErrors(cells), quad: quad, dictionary: dictionary, parameters: parameters)
    }

    /// The same from the data bits and the count of white border cells.
    public static func read(data: MarkerBits, borderErrors: Int, quad: Quad, dictionary: MarkerDictionary,
                            parameters: DetectorParameters) -> MarkerDetection? {
        guard Double(borderErrors) <= parameters.maxBorderErrorRate * 24 else { return nil }
        guard let decoded = dictionary.decode(data) else { return nil }
        // The grid was seen turned `rotation` quarter turns clockwise, so the printed top-left corner sits
        // at the unwarped square's corner number `rotation` (corners go clockwise from the top-left).
        let r = decoded.rotation
        return MarkerDetection(id: decoded.id, quad: Quad(quad[r], quad[(r + 1) % 4], quad[(r + 2) % 4], quad[(r + 3) % 4]))
    }
}

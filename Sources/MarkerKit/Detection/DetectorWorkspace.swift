/// The buffers one marker detector reuses from frame to frame: the gray frame, its reduced copy, the
/// binary image, the contours, the candidates, the unwarped square and the corner refiner's profiles. A stream of
/// frames of one size (`track`) allocates them with its first frame only. One workspace per thread.
public final class DetectorWorkspace {
    var gray = GrayImage.empty
    var reduced = GrayImage.empty
    var binary = GrayImage.empty
    var contours = Contours.ContourSet()
    var quads: [Quad] = []
    var square = GrayImage.empty
    var refiner = CornerRefiner.Scratch()

    public init() {}
}

import Foundation
import Testing
@testable import MarkerKit

/// Stage 4's merging of near-duplicate candidates: the same outline from several thresholds is one
/// candidate, but a marker inside the white frame around it (a ChArUco board whose markers fill 0.8 of
/// the square) is not the frame's duplicate, though its corners are as close as OpenCV's duplicate rule
/// allows.
struct QuadCandidatesTests {
    static func square(centre: Double, side: Double, turn: Double = 0.26) -> Quad {
        let half = side / 2
        let corners = [(-half, -half), (half, -half), (half, half), (-half, half)].map { x, y in
            Point2(x: centre + x * cos(turn) - y * sin(turn), y: centre + x * sin(turn) + y * cos(turn))
        }
        return Quad(corners: corners)
    }

    @Test func aSquareInsideItsFrameIsKeptAndRepeatsAreMerged() {
        let p = DetectorParameters()
        // The white square's inner edge (109 px) and the marker in it (87 px): mean corner distance 15.6 px,
        // under 0.05 of the marker's perimeter (17.4 px). Both stay, the larger first.
        var quads = [Self.square(centre: 200, side: 87), Self.square(centre: 200, side: 109)]
        #expect(QuadCandidates.meanCornerDistance(quads[0], quads[1]) < p.duplicateDistanceRate * quads[0].perimeter)
        QuadCandidates.removeDuplicates(&quads, rate: p.duplicateDistanceRate, nestedRate: p.nestedPerimeterRate)
        #expect(quads.count == 2 && abs(quads[0].perimeter / 4 - 109) < 0.01)
        // Three thresholds' outlines of one square, a pixel apart: one candidate, the largest.
        var repeats = [Self.square(centre: 200, side: 86), Self.square(centre: 200.4, side: 88), Self.square(centre: 200, side: 87)]
        QuadCandidates.removeDuplicates(&repeats, rate: p.duplicateDistanceRate, nestedRate: p.nestedPerimeterRate)
        #expect(repeats.count == 1 && abs(repeats[0].perimeter / 4 - 88) < 0.01)
    }

    /// A real photo of such a board (pyCamSet's, Apache-2.0, `Tests/Fixtures/charuco-real`): OpenCV 5's
    /// CharucoDetector reads 52 markers, OpenCV 4.6's detectMarkers 34; MarkerKit read 34 while the frame's
    /// edge took the place of the marker's, and reads every one of OpenCV 5's now.
    @Test func everyMarkerOfARealBoardOfMarkersFillingTheirSquares() throws {
        let image = try GrayImage(contentsOf: Fixtures.url("charuco-real/rlav440_pyCamSet_mono/cal1.jpg"))
        let found = Set(try MarkerDetector(dictionary: .named(.dict4x4_1000)).detect(in: image).map(\.id))
        // OpenCV 5.0's CharucoDetector on this photo (expected.json lists the count; these are its IDs).
        let openCV: Set<Int> = [65, 66, 67, 75, 76, 77, 78, 84, 85, 86, 87, 88, 95, 96, 97, 98, 104, 105, 106, 107, 108, 115, 116, 117, 118,
                                124, 125, 126, 127, 128, 135, 136, 137, 138, 144, 145, 146, 147, 148, 154, 155, 156, 157, 158, 164, 165, 166,
                                167, 175, 176, 177, 178]
        #expect(openCV.subtracting(found).isEmpty, "missed \(openCV.subtracting(found).sorted())")
        #expect(found.subtracting(openCV).isEmpty, "extra \(found.subtracting(openCV).sorted())")
    }
}

import CVBridge
import Foundation
import Testing
@testable import MarkerKit

/// Acceptance on real photos and video: our detector against the ArUco library's own results
/// and against OpenCV's aruco detector on the same frames.
@Suite struct DetectorTests {
    let detector = MarkerDetector()
    let openCV = OpenCVArucoDetector()

    /// Our detections include every one of OpenCV's (same ID, same place) and no ID OpenCV's or the
    /// expected set does not allow.
    func expectSuperset(ours: [MarkerDetection], openCV theirs: [MarkerDetection], allowed: Set<Int>, _ what: String) {
        for marker in theirs {
            let match = ours.first { $0.id == marker.id && $0.center.distance(to: marker.center) < marker.meanSide / 4 }
            #expect(match != nil, "\(what): OpenCV finds \(marker.id), we do not")
        }
        for marker in ours { #expect(allowed.contains(marker.id), "\(what): false ID \(marker.id)") }
    }

    @Test func singlePhotoGivesTheSixIDsAtTheLibrarysCorners() throws {
        let image = try GrayImage(contentsOf: Fixtures.url("aruco-original-photos/single/image-test.png"))
        let markers = try detector.detect(in: image)
        let expected = try Fixtures.expectedMarkers("aruco-original-photos/single/expected.yml")
        #expect(markers.map(\.id) == [101, 601, 701, 801, 901, 1001])
        #expect(expected.map(\.id).sorted() == markers.map(\.id))
        var worst = 0.0
        for e in expected {
            let ours = try #require(markers.first { $0.id == e.id })
            for (a, b) in zip(ours.corners, e.corners) {
                worst = max(worst, a.distance(to: b))
                #expect(a.distance(to: b) < 1.5, "ID \(e.id): corner off by \(a.distance(to: b)) px")
            }
        }
        print("measured: single photo, worst corner distance to ArUco's expected.yml \(String(format: "%.3f", worst)) px")
        expectSuperset(ours: markers, openCV: try openCV.detect(in: image), allowed: Set(expected.map(\.id)), "single")
    }

    @Test func posesAreSolvePnPOnOurCornersAndAgreeWithTheLibrary() throws {
        let image = try GrayImage(contentsOf: Fixtures.url("aruco-original-photos/single/image-test.png"))
        let camera = try CameraCalibration.read(from: Fixtures.url("aruco-original-photos/single/intrinsics.yml"))
        #expect(camera.fx == 628.158 && camera.distortion.count == 5)
        let estimator = MarkerPoseEstimator(calibration: camera, side: 0.05)
        let expected = try Fixtures.expectedMarkers("aruco-original-photos/single/expected.yml")
        var worst = 0.0
        for marker in try detector.detect(in: image) {
            let pose = try estimator.pose(of: marker)
            // The pose reprojects onto our corners (a real square seen through a real lens: about 1 px).
            let h = 0.025
            let reprojected = try estimator.project([(-h, h, 0), (h, h, 0), (h, -h, 0), (-h, -h, 0)], pose: pose)
            for (a, b) in zip(reprojected, marker.corners) { #expect(a.distance(to: b) < 1.5) }
            // The same call on the same corners again: deterministic to 1e-6.
            let again = try estimator.pose(of: marker)
            for (a, b) in zip(pose.tvec + pose.rvec, again.tvec + again.rvec) { #expect(abs(a - b) < 1e-6) }
            // expected.yml's Tvec is for marker side 1: scale by 0.05 m.
            let truth = try #require(expected.first { $0.id == marker.id }).tvec.map { $0 * 0.05 }
            let error = zip(pose.tvec, truth).map { ($0 - $1) * ($0 - $1) }.reduce(0, +).squareRoot()
            let norm = truth.map { $0 * $0 }.reduce(0, +).squareRoot()
            worst = max(worst, error / norm)
            #expect(error / norm < 0.05, "ID \(marker.id): translation off by \(100 * error / norm)%")
            #expect(pose.tvec[2] > 0, "markers are in front of the camera")
        }
        print("measured: single photo, worst translation difference to expected.yml \(String(format: "%.2f", 100 * worst))%")
    }

    /// What `detect` reports: each pose is OpenCV's solvePnP (IPPE_SQUARE) on the corners it reports,
    /// called here directly through the bridge, to 1e-6.
    @Test func reportedPosesAreSolvePnPOnReportedCorners() throws {
        let camera = try CameraCalibration.read(from: Fixtures.url("aruco-original-photos/single/intrinsics.yml"))
        var job = DetectionJob(poseEstimator: MarkerPoseEstimator(calibration: camera, side: 0.05))
        var results: [DetectionReport.FrameResult] = []
        _ = try job.run(.image(Fixtures.url("aruco-original-photos/single/image-test.png"))) { results.append($0) }
        let markers = try #require(results.first).markers
        #expect(markers.count == 6)
        for marker in markers {
            let pose = try #require(marker.pose)
            var r = [Double](repeating: 0, count: 3), t = [Double](repeating: 0, count: 3)
            #expect(cvb_solve_pnp_square(marker.corners.flatMap { $0 }, 0.05, camera.cameraMatrix, camera.distortion,
                                         Int32(camera.distortion.count), CVB_MODEL_OPENCV5, &r, &t) == 0)
            for (a, b) in zip(pose.rvec + pose.tvec, r + t) { #expect(abs(a - b) < 1e-6, "ID \(marker.id)") }
        }
    }

    /// Markers do not nest: a code read inside a larger marker is dropped, whatever its ID.
    @Test func aCodeInsideALargerMarkerIsDropped() {
        let outer = MarkerDetection(id: 256, corners: [Point2(x: 0, y: 0), Point2(x: 100, y: 0), Point2(x: 100, y: 100), Point2(x: 0, y: 100)])
        let inner = MarkerDetection(id: 0, corners: [Point2(x: 20, y: 20), Point2(x: 70, y: 20), Point2(x: 70, y: 70), Point2(x: 20, y: 70)])
        let apart = MarkerDetection(id: 7, corners: [Point2(x: 200, y: 0), Point2(x: 250, y: 0), Point2(x: 250, y: 50), Point2(x: 200, y: 50)])
        var markers = [inner, outer, apart]
        MarkerDetector.removeDuplicateIDs(&markers)
        #expect(markers.map(\.id).sorted() == [7, 256])
    }

    @Test func boardPhotoGivesAll24IDsAndNoOther() throws {
        let image = try GrayImage(contentsOf: Fixtures.url("aruco-original-photos/board/image-test.png"))
        let ids: Set<Int> = [64, 76, 125, 175, 177, 181, 233, 299, 341, 428, 461, 477, 618, 684, 717, 760, 791, 838,
                             882, 908, 977, 982, 985, 1005]
        let markers = try detector.detect(in: image)
        #expect(Set(markers.map(\.id)) == ids && markers.count == 24)
        expectSuperset(ours: markers, openCV: try openCV.detect(in: image), allowed: ids, "board")
    }

    @Test func videoGivesAtLeastOpenCVsDetectionsAndOnlyTheSixIDs() throws {
        let source = try VideoFileSource(url: Fixtures.url("aruco-original-photos/single/video.avi"))
        let six: Set<Int> = [101, 601, 701, 801, 901, 1001]
        var ours = 0, theirs = 0, frames = 0
        var sourced = SourcedFrame.empty
        while try source.next(into: &sourced) {
            let gray = try Grayscale.image(from: sourced.frame)
            let found = try detector.detect(in: gray)
            let reference = try openCV.detect(in: gray)
            ours += found.count
            theirs += reference.count
            frames += 1
            expectSuperset(ours: found, openCV: reference, allowed: six, "video frame \(sourced.index)")
        }
        #expect(frames == 145)
        #expect(theirs >= 778)
        #expect(ours >= theirs)
        print("measured: video.avi, \(frames) frames, ours \(ours) detections, OpenCV \(theirs)")
    }

    @Test func cornerOrderMatchesOpenCVWhateverTheTurn() throws {
        // A marker drawn in each of four turns: corner 0 is always the printed top-left.
        let directory = try TemporaryDirectory()
        let document = try MarkerSheet.singleMarker(id: 300, side: .mm(30), labels: false)
        let pdf = try write(document, as: "m.pdf", in: directory)[0]
        let page = try #require(try rasterizePDF(pdf, dpi: 200, in: directory).first)
        var image = page
        for turn in 0..<4 {
            let ours = try detector.detect(in: image)
            let theirs = try openCV.detect(in: image)
            #expect(ours.map(\.id) == [300] && theirs.map(\.id) == [300], "turn \(turn)")
            if let a = ours.first, let b = theirs.first {
                for (p, q) in zip(a.corners, b.corners) { #expect(p.distance(to: q) < 2, "turn \(turn)") }
            }
            image = image.rotatedClockwise()
        }
    }
}

extension GrayImage {
    /// The image turned a quarter turn clockwise.
    func rotatedClockwise() -> GrayImage {
        var out = [UInt8](repeating: 0, count: pixels.count)
        for y in 0..<height {
            for x in 0..<width { out[x * height + (height - 1 - y)] = pixels[y * width + x] }
        }
        return GrayImage(width: height, height: width, pixels: out)
    }
}

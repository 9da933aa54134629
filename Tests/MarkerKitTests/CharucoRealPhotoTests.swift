import Foundation
import Testing
@testable import MarkerKit

/// Real camera photos of ChArUco boards (`Tests/Fixtures/charuco-real`, copied from
/// `../shared/data/charuco-real`; Apache-2.0, each folder with its licence and PROVENANCE.txt). Its
/// `expected.json` gives per set the board and per photo the markers and corners OpenCV 5.0's
/// CharucoDetector finds. MARKERKIT_CHARUCO_PHOTOS names another folder of the same layout.
enum CharucoRealPhotos {
    static let folder = ProcessInfo.processInfo.environment["MARKERKIT_CHARUCO_PHOTOS"].map { URL(fileURLWithPath: $0) }
        ?? Fixtures.url("charuco-real")

    static func photos() throws -> CharucoPhotoSets {
        try CharucoPhotoSets(folder: folder)
    }
}

/// MarkerKit's ChArUco corners on real photos against OpenCV 4.6's (`cvb_charuco_interpolate`: its
/// detectMarkers, then interpolateCornersCharuco) on the same image, and OpenCV 5.0's CharucoDetector
/// (its count per photo in expected.json): at least as many as either on every photo,
/// both from the markers each reads and from OpenCV's markers given to MarkerKit's corner stage (which
/// separates the corner stage from marker reading). Where both report a corner and the corner is sharp, they agree within
/// 1 px (OpenCV 4.6's corners less its half pixel, opencv#25539).
@Suite(.serialized) struct CharucoRealPhotoTests {
    /// A corner is sharp when the edge spread fitted there (the Gaussian σ of `XCornerFit`) is at most
    /// this many pixels.
    static let sharpBlur = 2.0

    @Test(arguments: ["nbhr_pycalib_gopro", "rlav440_pyCamSet_mono"])
    func cornersAtLeastOpenCVsAndTheSameWhereSharp(set name: String) throws {
        let photos = try CharucoRealPhotos.photos()
        let set = try photos.set(name)
        let board = try set.board()
        let detector = CharucoDetector(board: board)
        let opencv = try OpenCVCharucoDetector(board: board)
        let opencvMarkers = OpenCVArucoDetector(dictionary: board.dictionary)
        var totals = (ours: 0, fromTheirMarkers: 0, opencv: 0, opencv5: 0)
        var sharp = 0, sharpDistances: [Double] = [], blurredDistances: [Double] = []
        for file in set.files {
            let image = try photos.gray(name, file)
            let (ours, trials) = detector.traced(in: image, markers: try detector.markerDetector.detect(in: image))
            let theirMarkers = try opencvMarkers.detect(in: image)
            let fromTheirMarkers = detector.detection(in: image, markers: theirMarkers)
            let theirs = try opencv.detect(in: image)
            let expected = set.images[file]!
            print("measured: \(name)/\(file): MarkerKit \(ours.corners.count) corners from \(ours.markers.count) markers, "
                  + "\(fromTheirMarkers.corners.count) from OpenCV 4.6's \(theirMarkers.count) markers; OpenCV 4.6 \(theirs.count); "
                  + "OpenCV 5.0 \(expected.cv2_corners) from \(expected.cv2_markers) markers (expected.json)"
                  + (ours.refusalSummary.map { "; refused: \($0)" } ?? ""))
            #expect(ours.corners.count >= theirs.count, "\(name)/\(file): MarkerKit \(ours.corners.count) corners, OpenCV 4.6 \(theirs.count)")
            #expect(ours.corners.count >= expected.cv2_corners, "\(name)/\(file): MarkerKit \(ours.corners.count) corners, OpenCV 5.0 \(expected.cv2_corners)")
            #expect(fromTheirMarkers.corners.count >= theirs.count,
                    "\(name)/\(file): from OpenCV's markers MarkerKit \(fromTheirMarkers.corners.count) corners, OpenCV 4.6 \(theirs.count)")
            var byID: [Int: Point2] = [:]
            for c in ours.corners { byID[c.id] = c.point }
            for c in theirs {
                guard let p = byID[c.id], let blur = trials[c.id]?.fit?.blur else { continue }
                let d = p.distance(to: Point2(x: c.point.x - 0.5, y: c.point.y - 0.5))
                if blur <= Self.sharpBlur {
                    sharp += 1
                    sharpDistances.append(d)
                    #expect(d <= 1, "\(name)/\(file) corner \(c.id) (σ \(blur) px): MarkerKit \(p), OpenCV 4.6 less 0.5 px \(c.point.x - 0.5), \(c.point.y - 0.5)")
                } else {
                    blurredDistances.append(d)
                }
            }
            totals.ours += ours.corners.count
            totals.fromTheirMarkers += fromTheirMarkers.corners.count
            totals.opencv += theirs.count
            totals.opencv5 += expected.cv2_corners
        }
        sharpDistances.sort()
        blurredDistances.sort()
        func median(_ v: [Double]) -> Double { v.isEmpty ? 0 : v[v.count / 2] }
        print(String(format: "measured: %@: MarkerKit %d corners (%d from OpenCV's markers), OpenCV 4.6 %d, OpenCV 5.0 %d; "
                     + "%d sharp corners in both (σ ≤ %.1f px) apart median %.3f max %.3f px; %d blurred apart median %.3f max %.3f px",
                     name, totals.ours, totals.fromTheirMarkers, totals.opencv, totals.opencv5, sharp, Self.sharpBlur,
                     median(sharpDistances), sharpDistances.last ?? 0, blurredDistances.count, median(blurredDistances), blurredDistances.last ?? 0))
    }

    /// Every corner reported on the rlav440 photos lies where the board's pose puts it, through the camera
    /// calibrated from them (Tests/Fixtures/charuco-views: poses fitted to the majority of an older
    /// commit's corners), within 8 px (0.06 of a square): a corner fitted on another crossing is a third
    /// of a square off or more, as four on the blurred `cal14` were (35-62 px).
    @Test func cornersLieWhereTheBoardsPoseProjectsThem() throws {
        struct Views: Decodable {
            struct Pose: Decodable { let rvec: [Double]; let tvec: [Double] }
            let camera_matrix: [Double]
            let distortion: [Double]
            let image_width: Int
            let image_height: Int
            let poses: [String: Pose]
        }
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/charuco-views/rlav440-views.json")
        let views = try JSONDecoder().decode(Views.self, from: Data(contentsOf: url))
        let camera = try CameraCalibration(name: "rlav440", cameraMatrix: views.camera_matrix, distortion: views.distortion,
                                           imageWidth: views.image_width, imageHeight: views.image_height)
        let name = "rlav440_pyCamSet_mono"
        let photos = try CharucoRealPhotos.photos()
        let set = try photos.set(name)
        let board = try set.board()
        let detector = CharucoDetector(board: board)
        let columns = board.squaresX - 1, s = board.square.millimetres
        var checked = 0, worst = 0.0
        for (file, pose) in views.poses.sorted(by: { $0.key < $1.key }) {
            let corners = try detector.detect(in: photos.gray(name, file)).corners
            let truth = try camera.project(corners.map { (Double($0.id % columns + 1) * s, Double($0.id / columns + 1) * s, 0) },
                                           pose: Pose3D(rvec: pose.rvec, tvec: pose.tvec))
            for (corner, expected) in zip(corners, truth) {
                let d = corner.point.distance(to: expected)
                checked += 1
                worst = max(worst, d)
                #expect(d <= 8, "\(file) corner \(corner.id): \(corner.point), the board's pose puts it at \(expected) (\(d) px off)")
            }
        }
        print(String(format: "measured: rlav440 corners against the boards' poses: %d corners, worst %.1f px", checked, worst))
        #expect(checked > 1500)
    }
}

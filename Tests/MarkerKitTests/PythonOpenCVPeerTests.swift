import Foundation
import Testing
@testable import MarkerKit

/// The bench's peer: OpenCV as a Python has it, timed in the same run. Here the Python is Debian's (its
/// cv2 is the OpenCV 4.6 markerkit links), so its ChArUco counts must be the linked pipeline's on the same
/// photos; `make peers` puts the newest OpenCV from pip behind the same protocol.
struct PythonOpenCVPeerTests {
    static let python = URL(fileURLWithPath: "/usr/bin/python3")

    @Test func countsEqualTheLinkedOpenCVsOnRealPhotos() throws {
        let peer = try PythonOpenCVPeer(python: Self.python)
        #expect(peer.version.hasPrefix("4.6"), "\(peer.version)")
        let photos = try CharucoRealPhotos.photos()
        for name in photos.sets.keys.sorted() {
            let set = try photos.set(name)
            let linked = try OpenCVCharucoDetector(board: set.board())
            let timings = try peer.charuco(set, in: photos.folder.appendingPathComponent(name), repeats: 1)
            #expect(timings.count == set.files.count)
            var same = 0
            for file in set.files {
                let ours = try linked.detect(in: photos.gray(name, file)).count
                let theirs = try #require(timings[file])
                #expect(theirs.milliseconds > 0 && theirs.milliseconds < 10_000)
                // Each side decodes the JPEG itself (cv2.imread's grayscale against markerkit's): a marker on
                // the edge of being read can go either way, so a count may differ by a few corners.
                #expect(abs(theirs.corners - ours) <= 4, "\(name)/\(file): peer \(theirs.corners), linked \(ours)")
                if theirs.corners == ours { same += 1 }
            }
            print("measured: \(name): peer (OpenCV \(peer.version)) and the linked OpenCV give the same count on \(same) of \(set.files.count) photos")
            #expect(same * 4 >= set.files.count * 3)
        }
    }

    /// The chessboard task finds a board exactly where the linked findChessboardCorners (adaptive,
    /// normalised) does, on two real sets: one where every photo has a board, one with two that do not.
    @Test func chessboardBoardsEqualTheLinkedOpenCVsOnRealPhotos() throws {
        let peer = try PythonOpenCVPeer(python: Self.python)
        for name in ["chessboard-opencv-9x6", "chessboard-udacity-lanelines"] {
            let set = try ChessboardPhotoSet(folder: Fixtures.url(name))
            let linked = ChessboardDetector(innerColumns: set.columns, innerRows: set.rows, method: .classic)
            let timings = try peer.chessboard(set, repeats: 1)
            var found = 0
            for file in set.files {
                let ours = try linked.detect(in: GrayImage(contentsOf: set.folder.appendingPathComponent(file))) != nil ? 1 : 0
                let theirs = try #require(timings[file])
                #expect(theirs.corners == ours, "\(name)/\(file): peer \(theirs.corners), linked \(ours)")
                found += theirs.corners
            }
            print("measured: \(name): the peer (OpenCV \(peer.version)) finds \(found) of \(set.files.count) boards, as the linked OpenCV")
        }
    }

    /// The markers task on cluttered frames (written as PNG, as the bench writes them): the peer's IDs and
    /// centres are the linked detectMarkers' (both OpenCV 4.6, default parameters), in DICT_ARUCO_ORIGINAL
    /// and in DICT_4X4_50; a time for every run.
    @Test func markersEqualTheLinkedOpenCVsOnClutteredFrames() throws {
        let peer = try PythonOpenCVPeer(python: Self.python)
        for dictionary in [MarkerDictionary.arucoOriginal, MarkerDictionary.named(.dict4x4_50)] {
            let scenes = try BenchmarkScenes.cluttered(count: 10, width: 640, height: 480, frames: 2, dictionary: dictionary)
            let images = try scenes.map { try SceneRenderer().render($0.scene) }
            let frames = try PeerFrames(images)
            let answers = try peer.markers(frames.urls, dictionary: dictionary, repeats: 2, threads: 1)
            #expect(answers.map(\.file) == frames.urls.map(\.lastPathComponent))
            var read = 0
            for (image, answer) in zip(images, answers) {
                let linked = try OpenCVArucoDetector(dictionary: dictionary).detect(in: image).sorted { $0.id < $1.id }
                let theirs = answer.detections.sorted { $0.id < $1.id }
                #expect(answer.times.count == 2 && answer.times.allSatisfy { $0 > 0 })
                #expect(theirs.map(\.id) == linked.map(\.id), "\(dictionary.name) \(answer.file)")
                for (a, b) in zip(theirs, linked) { #expect(a.center.distance(to: b.center) < 0.01) }
                read += theirs.count
            }
            print("measured: \(dictionary.name), 2 cluttered frames: the peer (OpenCV \(peer.version)) reads \(read) markers, as the linked OpenCV")
            #expect(read >= 15)
            withExtendedLifetime(frames) {}
        }
    }

    @Test func aProgramThatIsNotThePeerIsOneClearError() throws {
        for (path, words) in [("/bin/false", "failed"), ("/nonexistent/python", "cannot run")] {
            do {
                _ = try PythonOpenCVPeer(python: URL(fileURLWithPath: path))
                Issue.record("\(path) was taken as a peer")
            } catch let error as MarkerKitError {
                let message = "\(error)"
                #expect(message.contains(words) && message.contains(path) && !message.contains("\n"), "\(message)")
            }
        }
    }

    @Test func theInterpreterComesFromTheFlagThenTheEnvironment() {
        #expect(PythonOpenCVPeer.interpreter(explicit: "/x/python", environment: ["MARKERKIT_PEER_PYTHON": "/y/python"])?.path == "/x/python")
        #expect(PythonOpenCVPeer.interpreter(explicit: nil, environment: ["MARKERKIT_PEER_PYTHON": "/y/python"])?.path == "/y/python")
    }
}

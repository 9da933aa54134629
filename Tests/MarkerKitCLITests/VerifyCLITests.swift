import Foundation
import Testing
import MarkerKit

/// `markerkit render` and `markerkit verify` run as a user runs them.
@Suite struct VerifyCLITests {
    @Test func renderWritesImagesAndTruthThatTheDetectorConfirms() throws {
        let dir = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let result = try CLI.run(["render", "--seed", "3", "--count", "3", "--size", "640x480", "-o", "renders"], in: dir)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try files(in: dir.appendingPathComponent("renders")) == ["scene_000.png", "scene_001.png", "scene_002.png", "truth.json"])
        let truth = try JSONSerialization.jsonObject(with: Data(contentsOf: dir.appendingPathComponent("renders/truth.json"))) as! [String: Any]
        #expect(truth["units"] as? String == "mm")
        #expect((truth["camera"] as? [String: Any])?["image_width"] as? Int == 640)
        let scenes = truth["scenes"] as! [[String: Any]]
        #expect(scenes.count == 3 && scenes[0]["file"] as? String == "scene_000.png")
        // Our detector agrees with the truth file wherever it finds the marker.
        let detect = try CLI.run(["detect", "renders", "--json", "-"], in: dir)
        let found = (try JSONSerialization.jsonObject(with: Data(detect.stdout.utf8)) as! [String: Any])["frames"] as! [[String: Any]]
        var compared = 0
        for (scene, frame) in zip(scenes, found) {
            let expected = (scene["markers"] as! [[String: Any]])[0]
            guard let marker = (frame["markers"] as! [[String: Any]]).first(where: { $0["id"] as? Int == expected["id"] as? Int }) else { continue }
            for (a, b) in zip(marker["corners"] as! [[Double]], expected["corners"] as! [[Double]]) {
                #expect(abs(a[0] - b[0]) < 0.5 && abs(a[1] - b[1]) < 0.5)
            }
            compared += 1
        }
        #expect(compared >= 2)
    }

    @Test func verifyPrintsItsTableAndWritesJSONAndReport() throws {
        let dir = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let result = try CLI.run(["verify", "markers", "--renders", "6", "--size", "480x360", "--json", "v.json", "--report", "v.pdf"], in: dir)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("markerkit") && result.stdout.contains("opencv-subpix") && result.stdout.contains("by tilt"))
        #expect(try files(in: dir) == ["v.json", "v.pdf"])
    }

    /// `render` makes a test set and `verify markers --truth` measures the detectors on it: one trial per
    /// marker of the truth file, the same table as for sampled renders.
    @Test func verifyMeasuresARenderFolder() throws {
        let dir = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        #expect(try CLI.run(["render", "--count", "4", "--size", "480x360", "--seed", "9", "-o", "set"], in: dir).status == 0)
        let truth = try RenderTruthFile.read(from: dir.appendingPathComponent("set/truth.json"))
        let result = try CLI.run(["verify", "markers", "--truth", "set", "--json", "v.json"], in: dir)
        #expect(result.status == 0, "\(result.stderr)")
        let markers = truth.scenes.flatMap(\.markers).count
        #expect(result.stdout.contains("\(markers) markers in set/truth.json, 480x360"), "\(result.stdout)")
        struct Output: Decodable { let trials: [MarkerVerification.Trial] }
        let output = try JSONDecoder().decode(Output.self, from: Data(contentsOf: dir.appendingPathComponent("v.json")))
        #expect(output.trials.count == markers)
        #expect(output.trials.contains { $0.outcomes["markerkit"]?.found == true }, "markerkit finds the rendered markers")
    }

    /// `render --profile phone` writes phone photos with a camera per image and what is printed beside
    /// each marker; `verify markers --truth` measures them with each image's camera; `verify markers
    /// --profile phone` adds the phone's breakdowns.
    @Test func thePhoneProfileRendersAndVerifies() throws {
        let dir = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let render = try CLI.run(["render", "--profile", "phone", "--count", "2", "--seed", "4", "-o", "phone"], in: dir)
        #expect(render.status == 0, "\(render.stderr)")
        #expect(render.stdout.contains("rendered 2 phone photos ("), "\(render.stdout)")
        let truth = try RenderTruthFile.read(from: dir.appendingPathComponent("phone/truth.json"))
        #expect(truth.scenes.allSatisfy { $0.camera?.name == "builtin-phone" && $0.markers.count >= 3 })
        #expect(truth.scenes.contains { $0.markers.contains { $0.beside != nil } })
        for scene in truth.scenes {
            let image = try GrayImage(contentsOf: dir.appendingPathComponent("phone").appendingPathComponent(scene.file))
            #expect([image.width, image.height].sorted() == [scene.camera!.imageWidth, scene.camera!.imageHeight].sorted())
            #expect(image.width == scene.camera!.imageWidth && [3024, 4032, 2448, 3264].contains(image.width))
        }
        let measured = try CLI.run(["verify", "markers", "--truth", "phone"], in: dir)
        #expect(measured.status == 0, "\(measured.stderr)")
        #expect(measured.stdout.contains("\(truth.scenes.flatMap(\.markers).count) markers in phone/truth.json"), "\(measured.stdout)")
        let sampled = try CLI.run(["verify", "markers", "--profile", "phone", "--renders", "1", "--seed", "4", "--jobs", "1"], in: dir)
        #expect(sampled.status == 0, "\(sampled.stderr)")
        #expect(sampled.stdout.contains("in 1 renders, phone profile") && sampled.stdout.contains("by print beside"), "\(sampled.stdout)")
        // The first photo of seed 4 is the one rendered above: the same markers.
        #expect(sampled.stdout.contains("\(truth.scenes[0].markers.count) markers in 1 renders"), "\(sampled.stdout)")
    }

    /// `render --profile touching` writes sheets of touching markers (a marker chessboard or a tight grid);
    /// `verify markers` measures them from the folder and sampled, and says how many markers OpenCV read
    /// that MarkerKit missed.
    @Test func theTouchingProfileRendersAndVerifies() throws {
        let dir = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let render = try CLI.run(["render", "--profile", "touching", "--count", "2", "--size", "640x480", "--seed", "3", "-o", "touching"], in: dir)
        #expect(render.status == 0, "\(render.stderr)")
        #expect(render.stdout.contains("rendered 2 sheets of touching markers 640x480"), "\(render.stdout)")
        let truth = try RenderTruthFile.read(from: dir.appendingPathComponent("touching/truth.json"))
        #expect(truth.scenes.allSatisfy { $0.markers.count >= 2 })
        let markers = truth.scenes.flatMap(\.markers).count
        let measured = try CLI.run(["verify", "markers", "--truth", "touching"], in: dir)
        #expect(measured.status == 0, "\(measured.stderr)")
        #expect(measured.stdout.contains("\(markers) markers in touching/truth.json"), "\(measured.stdout)")
        let sampled = try CLI.run(["verify", "markers", "--profile", "touching", "--renders", "2", "--size", "640x480", "--seed", "3", "--jobs", "1"], in: dir)
        #expect(sampled.status == 0, "\(sampled.stderr)")
        #expect(sampled.stdout.contains("\(markers) markers in 2 renders, touching profile"), "\(sampled.stdout)")
        #expect(sampled.stdout.contains("read by another, missed by markerkit: opencv "), "\(sampled.stdout)")
    }

    /// `render --profile cluttered` writes markers on cards among clutter (3-30 a scene); `verify markers
    /// --profile cluttered` samples the same scenes for the same seed and names the profile.
    @Test func theClutteredProfileRendersAndVerifies() throws {
        let dir = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let render = try CLI.run(["render", "--profile", "cluttered", "--count", "2", "--size", "640x480", "--seed", "3", "-o", "clutter"], in: dir)
        #expect(render.status == 0, "\(render.stderr)")
        #expect(render.stdout.contains("rendered 2 cluttered scenes 640x480"), "\(render.stdout)")
        let truth = try RenderTruthFile.read(from: dir.appendingPathComponent("clutter/truth.json"))
        #expect(truth.scenes.allSatisfy { (3...30).contains($0.markers.count) })
        let markers = truth.scenes.flatMap(\.markers).count
        let sampled = try CLI.run(["verify", "markers", "--profile", "cluttered", "--renders", "2", "--size", "640x480", "--seed", "3", "--jobs", "1"], in: dir)
        #expect(sampled.status == 0, "\(sampled.stderr)")
        #expect(sampled.stdout.contains("\(markers) markers in 2 renders, cluttered profile"), "\(sampled.stdout)")
        #expect(sampled.stdout.contains("read by another, missed by markerkit: opencv 0 markers"), "\(sampled.stdout)")
    }

    /// `--start N` renders scene N of the seed and on, the same images and truth as rendering from 0.
    @Test func renderStartsAtAScene() throws {
        let dir = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        #expect(try CLI.run(["render", "--count", "3", "--size", "320x240", "--seed", "5", "-o", "all"], in: dir).status == 0)
        let one = try CLI.run(["render", "--start", "2", "--count", "1", "--size", "320x240", "--seed", "5", "-o", "one"], in: dir)
        #expect(one.status == 0, "\(one.stderr)")
        #expect(try files(in: dir.appendingPathComponent("one")) == ["scene_002.png", "truth.json"])
        #expect(try Data(contentsOf: dir.appendingPathComponent("one/scene_002.png")) == Data(contentsOf: dir.appendingPathComponent("all/scene_002.png")))
        let all = try RenderTruthFile.read(from: dir.appendingPathComponent("all/truth.json"))
        let alone = try RenderTruthFile.read(from: dir.appendingPathComponent("one/truth.json"))
        #expect(alone.scenes[0].markers.map(\.corners) == all.scenes[2].markers.map(\.corners))
    }

    static let badCases: [(arguments: [String], status: Int32, says: String)] = [
        (["render", "--start=-1", "-o", "r"], 64, "--start -1"),
        (["render", "--profile", "tablet", "-o", "r"], 64, "'tablet' is invalid for '--profile"),
        (["verify", "markers", "--profile", "webcam"], 64, "'webcam' is invalid for '--profile"),
        (["verify", "markers", "--profile", "phone", "--size", "640x480"], 64, "do not apply to --profile phone"),
        (["render", "--profile", "phone", "--calibration", "webcam", "-o", "r"], 64, "do not apply to --profile phone"),
        (["verify", "markers", "--profile", "phone", "--truth", "set"], 64, "--profile phone does not apply"),
        (["render", "--profile", "phone", "--clip", "3", "-o", "c.avi"], 64, "--profile phone does not apply"),
        (["render", "--profile", "touching", "--clip", "3", "-o", "c.avi"], 64, "--profile touching does not apply"),
        (["render", "--profile", "touching", "--board", "charuco", "-o", "r"], 64, "--profile touching does not apply"),
        (["verify", "markers", "--profile", "touching", "--truth", "set"], 64, "--profile touching does not apply"),
        (["render", "--profile", "cluttered", "--board", "charuco", "-o", "r"], 64, "--profile cluttered does not apply"),
        (["render", "--profile", "cluttered", "--clip", "3", "-o", "c.avi"], 64, "--profile cluttered does not apply"),
        (["render", "--count", "0", "-o", "r"], 64, "--count 0"),
        (["render", "--size", "12x", "-o", "r"], 64, "'12x' is invalid for '--size <WxH>'"),
        (["render", "--noise", "-3", "-o", "r"], 64, "--noise"),
        (["render", "--calibration", "nosuch", "-o", "r"], 66, "no calibration 'nosuch'"),
        (["render", "-o", "missing/r"], 73, "cannot create folder"),
        (["verify", "markers", "--renders", "0"], 64, "--renders 0"),
        (["verify", "markers", "--renders", "2", "--json", "nodir/v.json"], 73, "does not exist"),
        (["verify", "markers", "--renders", "2", "--report", "v.doc"], 73, "unknown extension"),
        (["verify", "calibration", "--views", "2"], 64, "--views 2"),
        (["verify", "calibration", "--size", "20x20"], 64, "at least 160x120"),
    ]

    @Test(arguments: 0..<badCases.count)
    func badInputGetsOneLine(index: Int) throws {
        let (arguments, status, says) = Self.badCases[index]
        let dir = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let result = try CLI.run(arguments, in: dir)
        #expect(result.status == status, "\(arguments): \(result.stderr)")
        #expect(result.stderrLines.count == 1, "\(arguments): \(result.stderr)")
        #expect(result.stderr.contains(says), "\(arguments): \(result.stderr)")
        #expect(try files(in: dir).isEmpty, "no output left behind")
    }
}

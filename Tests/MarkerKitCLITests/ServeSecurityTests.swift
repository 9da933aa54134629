import Foundation
import Testing

/// `markerkit serve` refuses what it must: paths that climb out (plain and encoded), requests without or
/// with a wrong token when it listens beyond loopback, oversized bodies, bad names; nothing is written
/// by a refused request, and Ctrl-C stops it within a second with the kept views intact.
@Suite(.serialized) struct ServeSecurityTests {
    /// A rendered board clip (8 views, 320x240) and its board spec, made once.
    static let clip: Result<URL, Error> = Result {
        let dir = try makeDirectory()
        let result = try CLI.run(["render", "--clip", "8", "--size", "320x240", "--seed", "3", "-o", "clip.avi"], in: dir)
        guard result.status == 0 else { throw ServeFailure("render --clip failed: \(result.stderr)") }
        return dir
    }

    static func serve(_ extra: [String] = [], in dir: URL) throws -> RunningServer {
        let clip = try Self.clip.get()
        return try RunningServer(["--device", clip.appendingPathComponent("clip.avi").path, "--board", clip.appendingPathComponent("clip.json").path,
                                  "--out", "views"] + extra, in: dir)
    }

    @Test func pathsThatClimbOutAreRefused() throws {
        let dir = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let server = try Self.serve(in: dir)
        #expect(try HTTP.request(server.base + "/").status == 200)
        #expect(try HTTP.request(server.base + "/app.js").status == 200)
        for path in ["/../../../../etc/passwd", "/%2e%2e/%2e%2e/etc/passwd", "/%252e%252e/%252e%252e/etc/passwd", "/..%2f..%2fetc%2fpasswd",
                     "/api/calibrations/..%2f..%2fetc%2fpasswd/json", "/api/calibrations/%2e%2e/json", "/..%5c..%5cetc%5cpasswd",
                     "/api/views/%2e%2e/thumbnail.jpg", "/./app.js", "/%2E%2E/Package.swift"] {
            let answer = try HTTP.request(server.base + path)
            #expect(answer.status == 400, "\(path): \(answer.status) \(answer.text)")
            #expect(!answer.text.contains("root:") && !answer.text.contains("PackageDescription"), "\(path)")
        }
        // Paths that stay inside but name nothing the server has: 404, never a file.
        for path in ["/etc/passwd", "/Package.swift", "/index.html.bak", "/api/views/99/thumbnail.jpg"] {
            let answer = try server.api(path)
            #expect(answer.status == 404, "\(path): \(answer.status) \(answer.text)")
        }
    }

    @Test func beyondLoopbackEveryRequestNeedsTheToken() throws {
        let dir = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let server = try Self.serve(["--host", "0.0.0.0"], in: dir)
        let token = try #require(server.token, "serve --host 0.0.0.0 prints a token")
        #expect(token.count == 32)
        #expect(try HTTP.request(server.base + "/").status == 401)
        #expect(try HTTP.request(server.base + "/api/status").status == 401)
        #expect(try HTTP.request(server.base + "/?token=0123456789abcdef0123456789abcdef").status == 403)
        #expect(try HTTP.request(server.base + "/api/status", headers: ["X-MarkerKit-Token": "wrong"]).status == 403)
        #expect(try HTTP.request(server.base + "/api/keep", method: "POST", body: Data("{}".utf8)).status == 401)
        // The live socket: no upgrade without the token (the WebSocket library answers a refused upgrade
        // with 400), 101 Switching Protocols with it.
        let upgrade = ["Connection": "Upgrade", "Upgrade": "websocket", "Sec-WebSocket-Version": "13", "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ=="]
        #expect(try HTTP.request(server.base + "/live", headers: upgrade).status == 400)
        #expect(try HTTP.request(server.base + "/live?token=wrong", headers: upgrade).status == 400)
        #expect(try HTTP.request(server.base + "/live?token=\(token)", headers: upgrade, extra: ["--max-time", "2"]).status == 101)
        #expect(try HTTP.request(server.base + "/?token=\(token)").status == 200)
        #expect(try HTTP.request(server.base + "/api/status", headers: ["X-MarkerKit-Token": token]).status == 200)
        #expect(try HTTP.request(server.base + "/api/status", headers: ["Authorization": "Bearer \(token)"]).status == 200)
        let stopped = try server.interrupt()
        #expect(stopped.stdout.contains("listening beyond loopback"), "\(stopped.stdout)")
    }

    @Test func oversizedBodiesBadNamesAndBadSheetsAreRefusedAndNothingIsWritten() throws {
        let dir = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let server = try Self.serve(in: dir)
        let store = dir.appendingPathComponent("Calibrations")
        let big = Data(("{\"kind\": \"" + String(repeating: "x", count: 100_000) + "\"}").utf8)
        #expect(try server.api("/api/sheet", method: "POST", body: big).status == 413)
        #expect(try server.api("/api/sheet", method: "POST", body: big, headers: ["Transfer-Encoding": "chunked"]).status == 413)
        #expect(try server.api("/api/calibrate", method: "POST", body: Data("not json".utf8)).status == 400)

        // Views come from the clip; then a calibration to store.
        let calibrated = try server.calibrateKeptViews()
        #expect(calibrated.status == 200, "\(calibrated.text)")
        #expect(try server.api("/api/calibrate", method: "POST", body: HTTP.json(["model": "opencv9"])).status == 422)
        // The model is checked before any view is searched, by the library's one list (pinhole passed the
        // server's own list before and was refused by the solver).
        let pinhole = try server.api("/api/calibrate", method: "POST", body: HTTP.json(["model": "pinhole"]))
        #expect(pinhole.status == 422 && pinhole.text.contains("solves for the lens models opencv5, opencv4, opencv8 or fisheye, not 'pinhole'"), "\(pinhole.text)")
        for name in ["../evil", ".hidden", "a/b", "", String(repeating: "n", count: 101), "x\\y", "name with space"] {
            let answer = try server.api("/api/store", method: "POST", body: HTTP.json(["name": name]))
            #expect(answer.status == 422, "'\(name)': \(answer.status) \(answer.text)")
            #expect(answer.text.contains("calibration name"), "\(answer.text)")
        }
        let storedFiles = FileManager.default.fileExists(atPath: store.path) ? try files(in: store) : []
        #expect(storedFiles.isEmpty, "nothing stored")
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("evil.yaml").path))
        #expect(try server.api("/api/store", method: "POST", body: HTTP.json(["name": "cam"])).status == 200)
        let first = try Data(contentsOf: store.appendingPathComponent("cam.yaml"))
        let again = try server.api("/api/store", method: "POST", body: HTTP.json(["name": "cam"]))
        #expect(again.status == 409 && again.text.contains("exists"), "\(again.text)")
        #expect(try Data(contentsOf: store.appendingPathComponent("cam.yaml")) == first)
        #expect(try server.api("/api/store", method: "POST", body: HTTP.json(["name": "cam", "force": true])).status == 200)
        for format in ["colmap", "..%2fx", "pdf"] {
            let answer = try server.api("/api/calibrations/cam/\(format)")
            #expect(answer.status == (format == "colmap" ? 200 : format == "pdf" ? 422 : 400), "\(format): \(answer.status)")
        }
        #expect(try server.api("/api/calibrations/nothere/json").status == 404)

        for (body, words) in [(["kind": "charuco", "squares": "5x7", "square": "40", "marker": "30mm"], "unit"),
                              (["kind": "charuco", "squares": "5x7", "square": "40mm", "marker": "50mm"], "smaller than the square"),
                              (["kind": "markers", "ids": "0-5000", "size": "40mm"], "5000"),
                              (["kind": "checkerboard", "inner": "9x6", "square": "90mm", "page": "a5"], "fit"),
                              (["kind": "poster"], "unknown sheet")] {
            let answer = try server.api("/api/sheet", method: "POST", body: HTTP.json(body))
            #expect(answer.status == 422 && answer.text.contains(words), "\(body): \(answer.status) \(answer.text)")
        }
        let sheet = try server.api("/api/sheet", method: "POST", body: HTTP.json(["kind": "charuco", "squares": "5x7", "square": "30mm", "marker": "20mm"]))
        #expect(sheet.status == 200 && sheet.body.starts(with: Data("%PDF".utf8)))
        // The form offers every dictionary (21, from the library's list), and a sheet of any of them is made.
        let page = try server.api("/").text
        let menu = try #require(page.firstMatch(of: /<select name="dictionary">(.*?)<\/select>/)?.output.1)
        let offered = menu.matches(of: /<option value="([^"]+)">/).map { String($0.output.1) }
        #expect(offered.count == 21 && offered.first == "aruco-original" && offered.contains("4x4_50") && offered.contains("apriltag_36h11"), "\(offered)")
        let tags = try server.api("/api/sheet", method: "POST", body: HTTP.json(["kind": "markers", "ids": "0-3", "size": "30mm", "dictionary": "apriltag_36h11"]))
        #expect(tags.status == 200 && tags.body.starts(with: Data("%PDF".utf8)), "\(tags.status) \(tags.text)")

        // Ctrl-C: out within a second, the views and their log whole.
        let stopped = try server.interrupt()
        #expect(stopped.status == 0 && stopped.seconds < CLI.seconds(1), "exit \(stopped.status) after \(stopped.seconds) s: \(stopped.stderr)")
        print(String(format: "measured: serve stopped %.3f s after Ctrl-C", stopped.seconds))
        let log = try JSONSerialization.jsonObject(with: Data(contentsOf: dir.appendingPathComponent("views/capture.json"))) as? [String: Any]
        let images = try #require(log?["images"] as? [[String: Any]])
        #expect(images.count >= 3 && images.allSatisfy { FileManager.default.fileExists(atPath: dir.appendingPathComponent("views/\($0["file"] as! String)").path) })
        #expect(stopped.stdout.contains("stopped; \(images.count) views kept in views/"), "\(stopped.stdout)")
    }

    @Test func startingFailsWithOneLineAndLeavesNothing() throws {
        let dir = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let missing = try CLI.run(["serve", "--device", "/dev/video-none-here", "--out", "views", "--port", "0"], in: dir)
        #expect(missing.status == 66 && missing.stderrLines.count == 1, "\(missing.status) \(missing.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("views").path), "the views folder is taken back")
        let port = try CLI.run(["serve", "--port", "70000"], in: dir)
        #expect(port.status == 64 && port.stderrLines.count == 1, "\(port.stderr)")
        let server = try Self.serve(in: dir)
        let busyPort = try #require(Int(server.base.split(separator: ":").last ?? ""))
        let clip = try Self.clip.get()
        let second = try CLI.run(["serve", "--device", clip.appendingPathComponent("clip.avi").path, "--port", "\(busyPort)", "--out", "views2"], in: dir)
        #expect(second.status == 73 && second.stderrLines.count == 1 && second.stderr.contains("in use"), "\(second.status) \(second.stderr)")
        _ = try server.api("/api/status") // someone watches: the clip plays and views are kept
        let deadline = Date().addingTimeInterval(60)
        while !FileManager.default.fileExists(atPath: dir.appendingPathComponent("views/capture.json").path) && Date() < deadline {
            Thread.sleep(forTimeInterval: 0.1)
        }
        let again = try CLI.run(["serve", "--device", clip.appendingPathComponent("clip.avi").path, "--board", clip.appendingPathComponent("clip.json").path,
                                 "--out", "views", "--port", "0"], in: dir)
        #expect(again.status == 73 && again.stderr.contains("--force"), "a views folder in use is not overwritten: \(again.stderr)")
    }
}

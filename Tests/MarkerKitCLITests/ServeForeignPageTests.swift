import Foundation
import Testing

/// A web page from another origin (a second local server, on another port of 127.0.0.1: the hardest case,
/// same site and no private-network barrier) opened in headless Chromium while `markerkit serve` runs: it
/// tries the live socket, fetches with every content type, form posts and a frame. All are refused and
/// nothing is kept or stored; then the real page, opened by its plain address, works.
@Suite(.serialized) struct ServeForeignPageTests {
    static func evilPage(target: String) -> String {
        """
        <!doctype html><html><head><meta charset="utf-8"><title>a page from elsewhere</title></head><body>
        <iframe id="framed" src="\(target)/" width="400" height="200"></iframe>
        <iframe name="sink1"></iframe><iframe name="sink2"></iframe><iframe name="sink3"></iframe>
        <form id="f1" method="POST" action="\(target)/api/store" enctype="text/plain" target="sink1"><input name='{"name":"webcam","force":true,"x":"' value='"}'></form>
        <form id="f2" method="POST" action="\(target)/api/keep" target="sink2"><input name="a" value="b"></form>
        <form id="f3" method="POST" action="\(target)/api/keep" enctype="multipart/form-data" target="sink3"><input name="a" value="b"></form>
        <img id="img" src="\(target)/api/frame.jpg">
        <script>
        const target = "\(target)";
        window.results = { ws: [], fetches: {}, img: "pending", pending: 0 };
        function socket(url, name) {
          results.pending++;
          let s;
          try { s = new WebSocket(url); } catch (e) { results.ws.push(name + ":throw"); results.pending--; return; }
          s.onopen = () => results.ws.push(name + ":open");
          s.onmessage = () => results.ws.push(name + ":message");
          s.onclose = () => { results.ws.push(name + ":close"); results.pending--; };
        }
        socket(target.replace("http:", "ws:") + "/live", "plain");
        socket(target.replace("http:", "ws:") + "/live?token=" + "0".repeat(32), "guessed");
        async function attempt(path, type, mode) {
          results.pending++;
          const key = path + " " + type + " " + mode;
          const headers = type ? { "Content-Type": type } : {};
          try {
            const r = await fetch(target + path, { method: "POST", mode, headers, body: JSON.stringify({ name: "webcam", force: true }) });
            results.fetches[key] = r.type === "opaque" ? "opaque" : String(r.status);
          } catch (e) { results.fetches[key] = "blocked"; }
          results.pending--;
        }
        for (const path of ["/api/keep", "/api/calibrate", "/api/store"])
          for (const type of ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data", "application/json", null])
            for (const mode of ["cors", "no-cors"]) attempt(path, type, mode);
        results.pending++;
        fetch(target + "/api/status").then(r => { results.fetches["status"] = String(r.status); }, () => { results.fetches["status"] = "blocked"; }).finally(() => results.pending--);
        document.getElementById("img").onload = () => { results.img = "loaded"; };
        document.getElementById("img").onerror = () => { results.img = "refused"; };
        document.getElementById("f1").submit();
        document.getElementById("f2").submit();
        document.getElementById("f3").submit();
        </script></body></html>
        """
    }

    @Test func aPageFromAnotherOriginGetsNothingAndTheRealPageWorks() throws {
        let dir = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let photo = try FakeCameraTests.grayPhoto(in: dir)
        let environment = try FakeCameraTests.environment(image: photo, format: "YUYV", frames: 0, fps: 15)
        let store = dir.appendingPathComponent("Calibrations")
        try FileManager.default.createDirectory(at: store, withIntermediateDirectories: true)
        let planted = Data("%YAML:1.0\n---\nname: \"webcam\"\n".utf8)
        try planted.write(to: store.appendingPathComponent("webcam.yaml"))
        let server = try RunningServer(["--device", FakeCameraTests.device, "--out", "views"], in: dir, environment: environment)

        // The other origin: a plain static server on another port of this machine.
        let site = dir.appendingPathComponent("elsewhere")
        try FileManager.default.createDirectory(at: site, withIntermediateDirectories: true)
        try Data(Self.evilPage(target: server.base).utf8).write(to: site.appendingPathComponent("index.html"))
        let port = Browser.freePort()
        let other = Process()
        other.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        other.arguments = ["-m", "http.server", "--bind", "127.0.0.1", "--directory", site.path, "\(port)"]
        other.standardOutput = FileHandle.nullDevice
        other.standardError = FileHandle.nullDevice
        try other.run()
        // SIGKILL: a child of the test runner does not end on SIGTERM (as chromedriver, see Browser), and
        // waitUntilExit would then wait, spinning, for ever.
        defer { kill(other.processIdentifier, SIGKILL); other.waitUntilExit() }
        let elsewhere = "http://127.0.0.1:\(port)"
        let deadline = Date().addingTimeInterval(20)
        while (try? HTTP.request(elsewhere + "/").status) != 200 && Date() < deadline { Thread.sleep(forTimeInterval: 0.1) }

        let browser = try Browser()
        try browser.open(elsewhere + "/")
        #expect(try browser.wait(30, until: "window.results && window.results.pending === 0 && window.results.img !== 'pending'"),
                "the foreign page's attempts end: \(String(describing: try? browser.run("return JSON.stringify(window.results)")))")
        let results = try #require(try browser.run("return window.results") as? [String: Any])
        let sockets = results["ws"] as? [String] ?? []
        #expect(sockets.contains("plain:close") && sockets.contains("guessed:close") && !sockets.contains { $0.hasSuffix(":open") || $0.hasSuffix(":message") },
                "no live socket for a foreign page: \(sockets)")
        let fetches = results["fetches"] as? [String: String] ?? [:]
        #expect(fetches.count == 31 && fetches.values.allSatisfy { $0 == "blocked" || $0 == "opaque" }, "no answer readable by a foreign page: \(fetches)")
        #expect(results["img"] as? String == "refused", "the picture is not shown to a foreign page")
        // The framed page: Chromium refuses to show it (X-Frame-Options, frame-ancestors): the frame holds an error page, not ours.
        try Browser.call(browser.sessionURL + "/frame", method: "POST", ["id": 0])
        let framed = try browser.run("return location.href + ' ' + !!document.getElementById('frame')") as? String ?? ""
        try Browser.call(browser.sessionURL + "/frame/parent", method: "POST", [:])
        #expect(!framed.hasSuffix("true"), "the page is not shown in a foreign frame: \(framed)")
        print("measured: foreign page: \(sockets.filter { $0.hasSuffix(":close") }.count) sockets refused, \(fetches.count) fetches blocked or opaque, 3 form posts, 1 image, 1 frame refused")

        // Nothing kept, nothing stored, no control taken.
        let status = try JSONSerialization.jsonObject(with: try server.api("/api/status").body) as? [String: Any]
        #expect(status?["views"] as? Int == 0, "nothing kept: \(String(describing: status?["views"]))")
        #expect(try Data(contentsOf: store.appendingPathComponent("webcam.yaml")) == planted, "the stored calibration is untouched")
        #expect(try FileManager.default.contentsOfDirectory(atPath: store.path) == ["webcam.yaml"])
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("views/view_000.png").path))

        // The real page, by its plain address: it carries the secret, controls the camera and keeps a view.
        try browser.open(server.base + "/")
        #expect(try browser.wait(20, until: "window.markerkit.framesShown >= 3"), "the picture arrives")
        #expect(try browser.text("#role").contains("you control the camera"))
        try browser.click("#keep")
        #expect(try browser.wait(10, until: "window.markerkit.status.views === 1"), "keep view works")
        #expect(try browser.wait(10, until: "document.getElementById('stored-list').textContent.includes('webcam')"), "the stored list loads")
        let stopped = try server.interrupt()
        #expect(stopped.status == 0, "\(stopped.stderr)")
    }
}

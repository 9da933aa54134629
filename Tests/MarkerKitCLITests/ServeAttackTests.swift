import Foundation
import Testing

/// `markerkit serve` tried as an attacker tries it, with curl and raw sockets, on its default loopback
/// address: every request that is not the page's own is refused with its status, nothing is kept or
/// stored by a refused request, and connections that say nothing, say it slowly, say it ambiguously or
/// come in hundreds are cut instead of holding the server.
@Suite(.serialized) struct ServeAttackTests {
    static let upgrade = ["Connection": "Upgrade", "Upgrade": "websocket", "Sec-WebSocket-Version": "13", "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ=="]
    static let evil = "http://evil.example"

    @Test func foreignPagesRebindingAndForgedRequestsAreRefused() throws {
        let dir = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let server = try ServeSecurityTests.serve(in: dir)
        let token = try #require(server.token, "the address printed carries the run's secret")
        #expect(token.count == 32)
        let calibrated = try server.calibrateKeptViews()
        #expect(calibrated.status == 200, "\(calibrated.text)")
        #expect(try server.api("/api/store", method: "POST", body: HTTP.json(["name": "webcam"])).status == 200)
        let store = dir.appendingPathComponent("Calibrations/webcam.yaml")
        let stored = try Data(contentsOf: store)

        // The page is open on loopback, with every protective header; it carries the secret.
        let page = try HTTP.request(server.base + "/")
        #expect(page.status == 200 && page.text.contains("content=\"\(token)\""), "the page carries the secret")
        for answer in [page, try HTTP.request(server.base + "/api/status"), try HTTP.request(server.base + "/nothing-here")] {
            #expect(answer.headers["x-frame-options"] == "DENY", "\(answer.headers)")
            #expect(answer.headers["content-security-policy"]?.contains("frame-ancestors 'none'") == true)
            #expect(answer.headers["x-content-type-options"] == "nosniff" && answer.headers["referrer-policy"] == "no-referrer")
        }

        // The live picture: no upgrade without the secret, nor from another origin even with it.
        #expect(try HTTP.request(server.base + "/live", headers: Self.upgrade.merging(["Origin": Self.evil]) { $1 }, extra: ["--max-time", "3"]).status == 400)
        #expect(try HTTP.request(server.base + "/live?token=\(token)", headers: Self.upgrade.merging(["Origin": Self.evil]) { $1 }, extra: ["--max-time", "3"]).status == 400)
        #expect(try HTTP.request(server.base + "/live?token=\(token)", headers: Self.upgrade.merging(["Origin": "http://127.0.0.1:1"]) { $1 }, extra: ["--max-time", "3"]).status == 400,
                "another port of this machine is another origin")
        #expect(try HTTP.request(server.base + "/live", headers: Self.upgrade, extra: ["--max-time", "3"]).status == 400)
        #expect(try HTTP.request(server.base + "/live?token=\(token)", headers: Self.upgrade.merging(["Origin": server.base]) { $1 }, extra: ["--max-time", "2"]).status == 101)

        // Cross-site request forgery: a foreign origin, a simple-request content type, the secret in the address.
        for (path, body) in [("/api/calibrate", ["model": "opencv5"]), ("/api/store", ["name": "webcam", "force": true] as [String: Any]), ("/api/keep", [:])] {
            let data = HTTP.json(body)
            #expect(try HTTP.request(server.base + path, method: "POST", body: data, headers: ["Origin": Self.evil], contentType: "text/plain").status == 403, "\(path)")
            #expect(try server.api(path, method: "POST", body: data, headers: ["Origin": Self.evil]).status == 403, "\(path): foreign origin with the secret")
            for type in ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x"] {
                let answer = try server.api(path, method: "POST", body: data, contentType: type)
                #expect(answer.status == 415, "\(path) as \(type): \(answer.status) \(answer.text)")
            }
            #expect(try HTTP.request(server.base + path, method: "POST", body: data).status == 401, "\(path) without the secret")
            #expect(try HTTP.request(server.base + path + "?token=\(token)", method: "POST", body: data).status == 401, "\(path): the secret only in the address")
            #expect(try server.api(path, method: "POST", body: data, headers: ["Sec-Fetch-Site": "same-site", "Sec-Fetch-Mode": "cors"]).status == 403)
        }
        #expect(try Data(contentsOf: store) == stored, "the stored calibration is untouched")

        // DNS rebinding: a foreign name that resolves here. Frames.
        for path in ["/", "/api/calibrations", "/app.js"] {
            let answer = try server.api(path, headers: ["Host": "evil.example:\(server.port)"])
            #expect(answer.status == 403 && answer.text.contains("evil.example"), "\(path): \(answer.status) \(answer.text)")
        }
        #expect(try server.api("/api/calibrations", headers: ["Host": "localhost:\(server.port)"]).status == 200, "localhost is this server")
        #expect(try HTTP.request(server.base + "/", headers: ["Sec-Fetch-Dest": "iframe", "Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "navigate"]).status == 403)
        #expect(try HTTP.request(server.base + "/", headers: ["Sec-Fetch-Dest": "document", "Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "navigate"]).status == 200,
                "the user following a link to the page")

        // The page's own requests still work, and the stored calibration downloads under any name that can be stored.
        #expect(try server.api("/api/store", method: "POST", body: HTTP.json(["name": "caméra"]), headers: ["Origin": server.base]).status == 200)
        let download = try server.api("/api/calibrations/cam%C3%A9ra/json")
        #expect(download.status == 200 && download.headers["content-disposition"]?.contains("filename*=UTF-8''cam%C3%A9ra.json.json") == true,
                "\(download.status) \(download.headers["content-disposition"] ?? "")")
        let missing = try server.api("/api/calibrations/nothere/json")
        #expect(missing.status == 404 && !missing.text.contains(dir.path), "no absolute path in an error: \(missing.text)")
        #expect(try server.interrupt().status == 0)
    }

    @Test func theHostGivenIsJudgedOnWhereItResolves() throws {
        let dir = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let photo = try FakeCameraTests.grayPhoto(in: dir)
        let environment = try FakeCameraTests.environment(image: photo, format: "YUYV", frames: 0, fps: 10)
        let unresolvable = try CLI.run(["serve", "--device", FakeCameraTests.device, "--out", "views", "--port", "0", "--host", "127.lab.invalid"],
                                       in: dir, environment: environment)
        #expect(unresolvable.status == 64 && unresolvable.stderrLines.count == 1 && unresolvable.stderr.contains("resolve"), "\(unresolvable.status) \(unresolvable.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("views").path))
        let badAllowed = try CLI.run(["serve", "--device", FakeCameraTests.device, "--port", "0", "--allow-host", "evil.example/x"], in: dir, environment: environment)
        #expect(badAllowed.status == 64 && badAllowed.stderrLines.count == 1, "\(badAllowed.stderr)")
        // localhost resolves to loopback: the page is open, its API needs the secret.
        let server = try RunningServer(["--device", FakeCameraTests.device, "--out", "views", "--host", "localhost", "--allow-host", "proxy.example"],
                                       in: dir, environment: environment)
        #expect(!(try server.interrupt()).stdout.contains("beyond loopback"))
        let again = try RunningServer(["--device", FakeCameraTests.device, "--out", "views2", "--allow-host", "proxy.example"], in: dir, environment: environment)
        #expect(try HTTP.request(again.base + "/", headers: ["Host": "proxy.example"]).status == 200, "a name allowed with --allow-host")
        #expect(try HTTP.request(again.base + "/api/status").status == 401)
        #expect(try again.api("/api/status").status == 200)
        _ = try again.interrupt()
    }

    @Test func connectionsThatSayNothingSlowlyOrAmbiguouslyAreCut() throws {
        let dir = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let photo = try FakeCameraTests.grayPhoto(in: dir)
        let environment = try FakeCameraTests.environment(image: photo, format: "YUYV", frames: 0, fps: 10)
        // Under a descriptor limit of 256, as the attack was made.
        let server = try RunningServer(["--device", FakeCameraTests.device, "--out", "views"], in: dir, environment: environment, descriptorLimit: 256)
        let host = "Host: 127.0.0.1:\(server.port)\r\n"

        // Ambiguous framing: 400 at once, on a first request and on a later one of the same connection.
        for head in ["Content-Length: 5\r\nContent-Length: 6\r\n", "Content-Length: -1\r\n", "Content-Length: 5\r\nTransfer-Encoding: chunked\r\n",
                     "Transfer-Encoding: gzip\r\n", "Content-Length: 99999999999999999999999\r\n"] {
            let first = try RawConnection(port: server.port)
            first.send("POST /api/keep HTTP/1.1\r\n\(host)\(head)Content-Type: application/json\r\n\r\n{}")
            #expect(first.status(within: 5) == 400, "first request with \(head.debugDescription)")
            let later = try RawConnection(port: server.port)
            later.send("GET /app.js HTTP/1.1\r\n\(host)\r\n")
            #expect(later.status(within: 5) == 200)
            later.send("POST /api/keep HTTP/1.1\r\n\(host)\(head)Content-Type: application/json\r\n\r\n{}")
            let answer = later.readUntilClosed(seconds: 5)
            #expect(answer.closed && answer.text.contains(" 400 "), "later request with \(head.debugDescription): \(answer.text.prefix(200))")
        }

        // A connection that says nothing, and one that says its head a byte a second: 408 and closed.
        let silent = try RawConnection(port: server.port)
        let slow = try RawConnection(port: server.port)
        slow.send("GET /app.js HTTP/1.1\r\n")
        let start = Date()
        var dripped = 0
        while Date().timeIntervalSince(start) < 14 {
            slow.send("X")
            dripped += 1
            Thread.sleep(forTimeInterval: 1)
            var poller = pollfd(fd: slow.fd, events: Int16(POLLIN), revents: 0)
            if poll(&poller, 1, 0) > 0 { break }
        }
        let slowEnd = slow.readUntilClosed(seconds: 3)
        let silentEnd = silent.readUntilClosed(seconds: 5)
        #expect(silentEnd.closed && silentEnd.text.contains(" 408 "), "\(silentEnd.text)")
        #expect(slowEnd.closed && slowEnd.text.contains(" 408 ") && dripped <= 12, "cut after \(dripped) bytes: \(slowEnd.text)")
        print(String(format: "measured: serve cut a silent connection and one dripping its head after %.1f s (%d bytes)", Date().timeIntervalSince(start), dripped))

        // Hundreds of idle connections from many clients under 256 descriptors: each client gets at most its
        // share, the server answers throughout (503 while full, never a hang), and answers 200 once they are cut.
        var held: [RawConnection] = [], refused = 0
        for client in 2...11 {
            for _ in 0..<34 {
                guard let connection = try? RawConnection(port: server.port, from: "127.0.0.\(client)") else { refused += 1; continue }
                held.append(connection)
            }
        }
        var cut = 0
        for connection in held {
            var poller = pollfd(fd: connection.fd, events: Int16(POLLIN), revents: 0)
            if poll(&poller, 1, 20) > 0 { cut += 1 }
        }
        let during = try HTTP.request(server.base + "/app.js", extra: ["--max-time", "5"])
        #expect(during.status == 503 || during.status == 200, "answers while flooded: \(during.status)")
        #expect(cut >= 340 - 192 - 10, "\(cut) of \(held.count) connections refused at once")
        print("measured: serve under 256 descriptors, 340 idle connections from 10 clients: \(cut) refused at once with 503, \(refused) not connected; a new request got \(during.status)")
        held.removeAll()
        Thread.sleep(forTimeInterval: 0.5)
        #expect(try HTTP.request(server.base + "/app.js", extra: ["--max-time", "5"]).status == 200, "answers once they are gone")
        #expect(try server.api("/api/status").status == 200)
        let stopped = try server.interrupt()
        #expect(stopped.status == 0, "stopped after \(stopped.seconds) s with \(stopped.status): \(stopped.stderr.suffix(2000))")
    }
}

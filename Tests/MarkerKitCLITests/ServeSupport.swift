import Foundation
import Testing

/// `markerkit serve` started as a user starts it (port 0: any free port), found by the address it prints.
final class RunningServer: @unchecked Sendable { // set once in init; read from the threads of a test
    let started: CLI.Started
    let directory: URL
    let base: String
    let token: String?

    init(_ arguments: [String], in directory: URL, environment: [String: String] = [:], descriptorLimit: Int? = nil) throws {
        self.directory = directory
        started = try CLI.Started(["serve", "--port", "0"] + arguments, in: directory, filePrefix: "serve-", environment: environment,
                                  descriptorLimit: descriptorLimit)
        let deadline = Date().addingTimeInterval(30)
        var line: Substring?
        while line == nil && Date() < deadline && started.process.isRunning {
            Thread.sleep(forTimeInterval: 0.05)
            let text = String(decoding: (try? Data(contentsOf: started.outFile)) ?? Data(), as: UTF8.self)
            line = text.split(separator: "\n").first { $0.hasPrefix("serving http://") }
        }
        guard let line, let address = line.split(separator: " ").dropFirst().first else {
            let out = try? started.output()
            throw ServeFailure("markerkit serve did not start: \(out?.stdout ?? "") \(out?.stderr ?? "")")
        }
        let url = String(address)
        token = url.components(separatedBy: "?token=").dropFirst().first
        base = url.components(separatedBy: "?").first!.replacingOccurrences(of: "0.0.0.0", with: "127.0.0.1").trimmingCharacters(in: CharacterSet(charactersIn: "/"))
    }

    var pid: Int32 { started.process.processIdentifier }

    /// Waits (at most a minute) until the capture assistant has kept 6 views of the clip or the clip has
    /// ended, then calibrates them as the page's button does.
    func calibrateKeptViews() throws -> HTTP.Answer {
        var views = 0
        let deadline = Date().addingTimeInterval(60)
        while views < 6 && Date() < deadline {
            Thread.sleep(forTimeInterval: 0.2)
            let status = try JSONSerialization.jsonObject(with: try api("/api/status").body) as? [String: Any]
            views = status?["views"] as? Int ?? 0
            if status?["phase"] as? String == "ended" { break }
        }
        return try api("/api/calibrate", method: "POST", body: HTTP.json(["model": "opencv5"]))
    }

    /// A request as the page makes it: with the run's secret in its header.
    func api(_ path: String, method: String = "GET", body: Data? = nil, headers: [String: String] = [:],
             contentType: String? = "application/json", extra: [String] = []) throws -> HTTP.Answer {
        var headers = headers
        if let token, headers["X-MarkerKit-Token"] == nil { headers["X-MarkerKit-Token"] = token }
        return try HTTP.request(base + path, method: method, body: body, headers: headers, contentType: contentType, extra: extra)
    }

    /// Ctrl-C; how long it took to exit, its status and output.
    func interrupt() throws -> (seconds: Double, status: Int32, stdout: String, stderr: String) {
        let start = Date()
        kill(pid, SIGINT)
        while started.process.isRunning && Date().timeIntervalSince(start) < CLI.seconds(10) { Thread.sleep(forTimeInterval: 0.005) }
        let seconds = Date().timeIntervalSince(start)
        if started.process.isRunning { kill(pid, SIGKILL) }
        started.process.waitUntilExit()
        let out = try started.output()
        return (seconds, started.process.terminationStatus, out.stdout, out.stderr)
    }

    deinit {
        if started.process.isRunning {
            kill(started.process.processIdentifier, SIGKILL)
            started.process.waitUntilExit()
        }
    }

    /// The CPU time (user + system, seconds) the server has used so far, from /proc.
    var cpuSeconds: Double {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return 0 }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        // After the command: state is field 3, utime 14, stime 15 (1-based), so 11 and 12 here.
        let ticks = (Double(fields[11]) ?? 0) + (Double(fields[12]) ?? 0)
        return ticks / Double(sysconf(Int32(_SC_CLK_TCK)))
    }
}

struct ServeFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// HTTP requests with curl, which sends a path exactly as given (`--path-as-is`), encoded dots and all.
enum HTTP {
    struct Answer {
        let status: Int
        let body: Data
        /// Response headers, names in lower case (the last answer's, after any 1xx).
        var headers: [String: String] = [:]
        var text: String { String(decoding: body, as: UTF8.self) }
    }

    static func request(_ url: String, method: String = "GET", body: Data? = nil, headers: [String: String] = [:],
                        contentType: String? = "application/json", extra: [String] = []) throws -> Answer {
        let dir = FileManager.default.temporaryDirectory
        let out = dir.appendingPathComponent("curl-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: out) }
        let headerFile = dir.appendingPathComponent("curl-headers-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: headerFile) }
        var arguments = ["-s", "--path-as-is", "-o", out.path, "-D", headerFile.path, "-w", "%{http_code}", "-X", method, "--max-time", "60"] + extra
        for (name, value) in headers { arguments += ["-H", "\(name): \(value)"] }
        var bodyFile: URL?
        if let body {
            let file = dir.appendingPathComponent("curl-body-\(UUID().uuidString)")
            try body.write(to: file)
            bodyFile = file
            arguments += ["--data-binary", "@\(file.path)"]
            if let contentType { arguments += ["-H", "Content-Type: \(contentType)"] }
        }
        defer { if let bodyFile { try? FileManager.default.removeItem(at: bodyFile) } }
        let result = try CLI.run(arguments + [url], in: dir, executable: "/usr/bin/curl")
        guard let status = Int(result.stdout) else { throw ServeFailure("curl \(url): \(result.stderr)") }
        var fields: [String: String] = [:]
        let head = String(decoding: (try? Data(contentsOf: headerFile)) ?? Data(), as: UTF8.self)
        for line in head.components(separatedBy: "\r\n") {
            if line.hasPrefix("HTTP/") { fields = [:]; continue }
            guard let colon = line.firstIndex(of: ":") else { continue }
            fields[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return Answer(status: status, body: (try? Data(contentsOf: out)) ?? Data(), headers: fields)
    }

    static func json(_ value: [String: Any]) -> Data { try! JSONSerialization.data(withJSONObject: value) }
}

/// Headless Chromium driven through chromedriver (WebDriver over HTTP), as a user's browser.
final class Browser {
    private let driver: Process
    private let endpoint: String
    private let session: String
    var sessionURL: String { session }

    init() throws {
        let port = Self.freePort()
        driver = Process()
        driver.executableURL = URL(fileURLWithPath: "/usr/bin/chromedriver")
        driver.arguments = ["--port=\(port)"]
        driver.standardOutput = FileHandle.nullDevice
        driver.standardError = FileHandle.nullDevice
        try driver.run()
        endpoint = "http://127.0.0.1:\(port)"
        let deadline = Date().addingTimeInterval(20)
        while (try? HTTP.request(endpoint + "/status").status) != 200 {
            guard Date() < deadline else { throw ServeFailure("chromedriver did not start") }
            Thread.sleep(forTimeInterval: 0.1)
        }
        let options: [String: Any] = ["binary": "/usr/bin/chromium",
                                      "args": ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1400,1500"]]
        let answer = try Self.call(endpoint + "/session", method: "POST",
                                   ["capabilities": ["alwaysMatch": ["browserName": "chrome", "goog:chromeOptions": options]]])
        guard let value = answer as? [String: Any], let id = value["sessionId"] as? String else {
            throw ServeFailure("no WebDriver session: \(String(describing: answer))")
        }
        session = endpoint + "/session/" + id
    }

    deinit {
        _ = try? HTTP.request(session, method: "DELETE")
        kill(driver.processIdentifier, SIGKILL) // chromedriver does not end on SIGTERM
        driver.waitUntilExit()
    }

    @discardableResult
    static func call(_ url: String, method: String = "GET", _ body: [String: Any]? = nil) throws -> Any? {
        let answer = try HTTP.request(url, method: method, body: body.map(HTTP.json))
        let object = try JSONSerialization.jsonObject(with: answer.body, options: [.fragmentsAllowed]) as? [String: Any]
        guard answer.status == 200 else { throw ServeFailure("WebDriver \(method) \(url): \(answer.text)") }
        return object?["value"]
    }

    func open(_ url: String) throws { try Self.call(session + "/url", method: "POST", ["url": url]) }

    /// A new tab, made current: a second user of the page.
    func newTab() throws {
        let value = try Self.call(session + "/window/new", method: "POST", ["type": "tab"]) as? [String: Any]
        guard let handle = value?["handle"] as? String else { throw ServeFailure("no new tab") }
        try Self.call(session + "/window", method: "POST", ["handle": handle])
    }

    /// Runs JavaScript in the page and returns its result.
    func run(_ script: String) throws -> Any? { try Self.call(session + "/execute/sync", method: "POST", ["script": script, "args": []]) }

    private func element(_ css: String) throws -> String {
        let value = try Self.call(session + "/element", method: "POST", ["using": "css selector", "value": css]) as? [String: Any]
        guard let id = value?.values.first as? String else { throw ServeFailure("no element \(css)") }
        return id
    }

    func click(_ css: String) throws { try Self.call(session + "/element/\(try element(css))/click", method: "POST", [:]) }

    func type(_ css: String, _ text: String) throws {
        try Self.call(session + "/element/\(try element(css))/value", method: "POST", ["text": text])
    }

    func text(_ css: String) throws -> String { try run("return document.querySelector('\(css)').textContent") as? String ?? "" }

    /// Waits until the script returns true; false after `seconds`.
    func wait(_ seconds: Double, until script: String) throws -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if try run("return !!(\(script))") as? Bool == true { return true }
            Thread.sleep(forTimeInterval: 0.1)
        }
        return false
    }

    /// A PNG of the page, saved under .build/screenshots/ to be looked at.
    @discardableResult
    func screenshot(_ name: String) throws -> URL {
        _ = try run("window.scrollTo(0, 0)")
        guard let base64 = try Self.call(session + "/screenshot") as? String, let png = Data(base64Encoded: base64) else {
            throw ServeFailure("no screenshot")
        }
        let folder = FakeCameraTests.root.appendingPathComponent(".build/screenshots")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let url = folder.appendingPathComponent(name + ".png")
        try png.write(to: url)
        print("screenshot: \(url.path)")
        return url
    }

    /// A port nothing listens on now (the kernel's choice for port 0).
    static func freePort() -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}

/// A TCP connection written byte for byte, as an attacker's tool writes it: malformed heads, heads that
/// never end, connections that say nothing. It may come from another loopback address (127.0.0.2 ...),
/// which the server counts as another client.
final class RawConnection {
    let fd: Int32

    init(port: Int, from source: String? = nil) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw ServeFailure("socket: \(String(cString: strerror(errno)))") }
        if let source {
            var local = sockaddr_in()
            local.sin_family = sa_family_t(AF_INET)
            local.sin_addr.s_addr = inet_addr(source)
            let bound = withUnsafePointer(to: &local) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
            guard bound == 0 else { close(fd); throw ServeFailure("bind \(source): \(String(cString: strerror(errno)))") }
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        guard connected == 0 else { close(fd); throw ServeFailure("connect: \(String(cString: strerror(errno)))") }
    }

    deinit { close(fd) }

    func send(_ text: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    /// What the server sends until it closes the connection or `seconds` pass, and whether it closed.
    func readUntilClosed(seconds: Double) -> (text: String, closed: Bool, after: Double) {
        let start = Date()
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while Date().timeIntervalSince(start) < seconds {
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let left = seconds - Date().timeIntervalSince(start)
            guard poll(&poller, 1, Int32(max(1, min(left, 0.5) * 1000))) > 0 else { continue }
            let n = recv(fd, &buffer, buffer.count, 0)
            if n <= 0 { return (String(decoding: data, as: UTF8.self), true, Date().timeIntervalSince(start)) }
            data.append(contentsOf: buffer[0..<n])
        }
        return (String(decoding: data, as: UTF8.self), false, Date().timeIntervalSince(start))
    }

    /// The status of the first answer read within `seconds`, or nil.
    func status(within seconds: Double) -> Int? {
        let start = Date()
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while Date().timeIntervalSince(start) < seconds {
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 200) > 0 else { continue }
            let n = recv(fd, &buffer, buffer.count, 0)
            if n <= 0 { break }
            data.append(contentsOf: buffer[0..<n])
            let text = String(decoding: data, as: UTF8.self)
            if text.contains("\r\n"), let code = text.split(separator: " ").dropFirst().first.flatMap({ Int($0) }) { return code }
        }
        let text = String(decoding: data, as: UTF8.self)
        return text.split(separator: " ").dropFirst().first.flatMap { Int($0) }
    }
}

extension RunningServer {
    var port: Int { Int(base.split(separator: ":").last ?? "") ?? 0 }
}

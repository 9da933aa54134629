import Foundation
import Testing

/// `markerkit serve`'s store under an attacker's load: twenty forced stores of one name at
/// once all succeed, twenty unforced ones give one success and nineteen refusals, the file is always one
/// whole calibration, and no answer names an absolute path.
@Suite struct ServeStoreRaceTests {
    /// `count` requests sent at once (one thread each); their answers in order.
    static func together(_ count: Int, _ request: @escaping @Sendable () throws -> HTTP.Answer) -> [HTTP.Answer?] {
        final class Answers: @unchecked Sendable {
            let lock = NSLock()
            var list: [HTTP.Answer?]
            init(_ count: Int) { list = Array(repeating: nil, count: count) }
        }
        let answers = Answers(count)
        let start = DispatchSemaphore(value: 0)
        let group = DispatchGroup()
        for i in 0..<count {
            group.enter()
            Thread {
                start.wait()
                let answer = try? request()
                answers.lock.withLock { answers.list[i] = answer }
                group.leave()
            }.start()
        }
        for _ in 0..<count { start.signal() }
        group.wait()
        return answers.list
    }

    @Test func concurrentStoresOfOneNameAndHostileNames() throws {
        let dir = try makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let server = try ServeSecurityTests.serve(in: dir)
        let store = dir.appendingPathComponent("Calibrations") // given to serve as an absolute path
        let calibrated = try server.calibrateKeptViews()
        try #require(calibrated.status == 200, "\(calibrated.text)")

        let forced = Self.together(20) { try server.api("/api/store", method: "POST", body: HTTP.json(["name": "webcam", "force": true])) }
        #expect(forced.map { $0?.status } == Array(repeating: 200, count: 20), "\(forced.map { "\($0?.status ?? 0) \($0?.text ?? "")" })")
        #expect(try String(contentsOf: store.appendingPathComponent("webcam.yaml"), encoding: .utf8).contains("camera_matrix"))

        let unforced = Self.together(20) { try server.api("/api/store", method: "POST", body: HTTP.json(["name": "other"])) }
        let statuses = unforced.map { $0?.status ?? 0 }
        #expect(statuses.filter { $0 == 200 }.count == 1 && statuses.filter { $0 == 409 }.count == 19, "\(statuses)")
        for answer in unforced.compactMap({ $0 }) where answer.status != 200 {
            #expect(answer.text.contains("'other.yaml' exists") && !answer.text.contains(dir.path), "\(answer.text)")
        }
        #expect(try files(in: store) == ["other.yaml", "webcam.yaml"], "no temporary file left")

        // NFD and NFC are one name; invisible and overlong names are refused without a path.
        #expect(try server.api("/api/store", method: "POST", body: HTTP.json(["name": "came\u{301}ra"])).status == 200)
        let nfc = try server.api("/api/store", method: "POST", body: HTTP.json(["name": "cam\u{E9}ra"]))
        #expect(nfc.status == 409, "\(nfc.text)")
        let listed = try JSONSerialization.jsonObject(with: try server.api("/api/calibrations").body) as? [[String: Any]]
        #expect(listed?.compactMap { $0["name"] as? String }.map { Array($0.utf8) } == [Array("cam\u{E9}ra".utf8), Array("other".utf8), Array("webcam".utf8)])
        for name in ["web\u{200D}cam", String(repeating: "\u{301}", count: 300), String(repeating: "n", count: 101)] {
            let answer = try server.api("/api/store", method: "POST", body: HTTP.json(["name": name]))
            #expect(answer.status == 422 && answer.text.contains("calibration name") && !answer.text.contains(dir.path), "\(answer.status) \(answer.text)")
        }
    }
}

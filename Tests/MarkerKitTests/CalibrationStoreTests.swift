import Foundation
import Testing
@testable import MarkerKit

/// The calibration store against an attacker: writes that cannot be redirected by a planted
/// symbolic link or broken by writers of one name at once, and names that mean one thing however typed.
@Suite struct CalibrationStoreTests {
    func folder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("store-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: false)
        return url
    }

    static func camera(_ name: String, fx: Double = 500) -> CameraCalibration {
        var c = BuiltInCamera.webcam(width: 640, height: 480)
        c.name = name
        c.cameraMatrix[0] = fx
        return c
    }

    /// Gives the tokens it was made with, then random ones.
    struct Planted: RandomNumberGenerator {
        var tokens: [UInt64]
        var rest = SystemRandomNumberGenerator()
        mutating func next() -> UInt64 { tokens.isEmpty ? rest.next() : tokens.removeFirst() }
    }

    func isSymlink(_ url: URL) -> Bool {
        var s = stat()
        return lstat(url.path, &s) == 0 && (s.st_mode & S_IFMT) == S_IFLNK
    }

    /// Before: the temporary file was `.NAME.PID.tmp` (`.NAME.PID.N.tmp` in `commit`), opened with
    /// O_CREAT|O_TRUNC, so a link planted there made the write land where the link pointed.
    @Test func aSymlinkAtAPredictableTemporaryNameRedirectsNothing() throws {
        let dir = try folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = CalibrationStore(directory: dir.appendingPathComponent("Calibrations"))
        let outside = dir.appendingPathComponent("outside")
        try FileManager.default.createDirectory(at: store.directory, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: false)
        let precious = outside.appendingPathComponent("precious")
        try Data("precious".utf8).write(to: precious)
        // Every name the old writers would have used in this process: links to a file that exists and to one that does not.
        let pid = getpid()
        var planted: [URL] = []
        for file in ["webcam.yaml", "report.pdf"] {
            for (i, suffix) in ["\(pid).tmp", "\(pid).0.tmp", "\(pid).1.tmp"].enumerated() {
                let link = store.directory.appendingPathComponent(".\(file).\(suffix)")
                try FileManager.default.createSymbolicLink(at: link, withDestinationURL: i == 0 ? precious : outside.appendingPathComponent("new-\(file)-\(i)"))
                planted.append(link)
            }
        }
        let location = try CalibrationLocation(name: "webcam", in: store)
        try location.write(Self.camera("webcam"), force: false)
        try location.write(Self.camera("webcam", fx: 600), force: true)
        var files = OutputFiles()
        files.add(Data("report".utf8), at: store.directory.appendingPathComponent("report.pdf"))
        try files.commit()

        #expect(try String(contentsOf: precious, encoding: .utf8) == "precious")
        #expect(try FileManager.default.contentsOfDirectory(atPath: outside.path) == ["precious"], "nothing written outside the store")
        #expect(try store.resolve("webcam").fx == 600)
        #expect(planted.allSatisfy(isSymlink), "the planted links are left as they were, not written through nor removed")
        let left = try FileManager.default.contentsOfDirectory(atPath: store.directory.path).filter { name in
            !planted.contains { $0.lastPathComponent == name }
        }
        #expect(left.sorted() == ["report.pdf", "webcam.yaml"], "no temporary file left: \(left)")
    }

    /// The new temporary names are random; one an attacker guessed (here: planted at the names the first
    /// tokens give) is skipped, not written through, and the write lands in the store.
    @Test func aSymlinkAtTheDrawnTemporaryNameIsSkipped() throws {
        let dir = try folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let final = dir.appendingPathComponent("webcam.yaml")
        let outside = dir.appendingPathComponent("outside.yaml")
        let link = OutputFiles.Temporary.url(beside: final, token: 7)
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: outside)
        try Data().write(to: OutputFiles.Temporary.url(beside: final, token: 8)) // a plain file planted too
        var random = Planted(tokens: [7, 8, 7, 9])
        let temp = try OutputFiles.Temporary(beside: final, shown: "webcam.yaml", using: &random)
        defer { temp.close() }
        #expect(temp.url == OutputFiles.Temporary.url(beside: final, token: 9))
        try temp.write(Data("calibration".utf8))
        try temp.link()
        temp.remove()
        #expect(try String(contentsOf: final, encoding: .utf8) == "calibration")
        #expect(!FileManager.default.fileExists(atPath: outside.path) && isSymlink(link))
        #expect(!FileManager.default.fileExists(atPath: temp.url.path))
        #expect(OutputFiles.Temporary.url(beside: final, token: 1).lastPathComponent == ".webcam.yaml.0000000000000001.tmp")
    }

    /// A temporary file swapped for a link between its writing and its rename is not renamed into place.
    @Test func aTemporaryFileReplacedWhileWrittenIsNotRenamed() throws {
        let dir = try folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let final = dir.appendingPathComponent("webcam.yaml")
        let temp = try OutputFiles.Temporary(beside: final, shown: "webcam.yaml")
        defer { temp.close() }
        try temp.write(Data("ours".utf8))
        unlink(temp.url.path)
        try FileManager.default.createSymbolicLink(at: temp.url, withDestinationURL: dir.appendingPathComponent("elsewhere"))
        #expect(throws: MarkerKitError.self) { try temp.rename() }
        #expect(throws: MarkerKitError.self) { try temp.link() }
        temp.remove()
        #expect(!FileManager.default.fileExists(atPath: final.path) && isSymlink(temp.url))
    }

    /// Runs `body(i)` on `count` threads started together; returns each one's error, if any.
    func together(_ count: Int, _ body: @escaping @Sendable (Int) throws -> Void) -> [Error?] {
        final class Results: @unchecked Sendable {
            let lock = NSLock()
            var errors: [Error?]
            init(_ count: Int) { errors = Array(repeating: nil, count: count) }
        }
        let results = Results(count)
        let start = DispatchSemaphore(value: 0)
        let group = DispatchGroup()
        for i in 0..<count {
            group.enter()
            let thread = Thread {
                start.wait()
                do { try body(i) } catch { results.lock.withLock { results.errors[i] = error } }
                group.leave()
            }
            thread.start()
        }
        for _ in 0..<count { start.signal() }
        group.wait()
        return results.errors
    }

    /// Before: 20 forced stores of one name in one process shared the temporary file `.NAME.PID.tmp`
    /// and most failed (the server's POST /api/store gave 14-17 errors in 20).
    @Test func twentyWritersOfOneNameAtOnce() throws {
        let dir = try folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = CalibrationStore(directory: dir.appendingPathComponent("Calibrations"))
        let fxs = (0..<20).map { 500 + Double($0) }
        for round in 0..<3 {
            let forced = together(20) { i in
                try CalibrationLocation(name: "webcam", in: store).write(Self.camera("webcam", fx: fxs[i]), force: true)
            }
            #expect(forced.compactMap { $0 }.isEmpty, "round \(round): \(forced.compactMap { $0 })")
            let stored = try CameraCalibration.read(from: store.directory.appendingPathComponent("webcam.yaml"))
            #expect(fxs.contains(stored.fx) && stored.imageWidth == 640, "one whole calibration of the 20")

            let name = "new\(round)"
            let unforced = together(20) { i in
                try CalibrationLocation(name: name, in: store).write(Self.camera(name, fx: fxs[i]), force: false)
            }
            let refusals = unforced.compactMap { $0 }
            #expect(refusals.count == 19, "round \(round): exactly one of 20 stores \(name): \(refusals)")
            #expect(refusals.allSatisfy { if case MarkerKitError.outputExists = $0 { return true } else { return false } }, "\(refusals)")
            let first = try CameraCalibration.read(from: store.directory.appendingPathComponent("\(name).yaml"))
            #expect(first.fx == fxs[unforced.firstIndex { $0 == nil } ?? -1])
        }
        let left = try FileManager.default.contentsOfDirectory(atPath: store.directory.path)
        #expect(left.sorted() == ["new0.yaml", "new1.yaml", "new2.yaml", "webcam.yaml"], "no temporary file left: \(left)")
    }

    @Test func namesMeanOneThingHoweverTyped() throws {
        let dir = try folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = CalibrationStore(directory: dir.appendingPathComponent("Calibrations"))
        let nfc = "cam\u{E9}ra", nfd = "came\u{301}ra"
        #expect(try CalibrationStore.normalized(name: nfd) == nfc)
        try store.save(Self.camera(nfd), force: false)
        #expect(store.names() == [nfc])
        #expect(throws: MarkerKitError.outputExists(store.directory.appendingPathComponent("\(nfc).yaml").path)) {
            try store.save(Self.camera(nfc), force: false)
        }
        #expect(store.storedFile(for: nfd) == store.storedFile(for: nfc) && store.storedFile(for: nfc) != nil)
        #expect(try store.resolve(nfd).name == nfc && store.resolve(nfc).name == nfc)
        // Swift's String compares canonically equivalent text as equal: the bytes say which form was written.
        let written = try Data(contentsOf: try #require(store.storedFile(for: nfc)))
        #expect(written.range(of: Data(nfc.utf8)) != nil && written.range(of: Data(nfd.utf8)) == nil, "the calibration carries its stored name in NFC")
        #expect(try FileManager.default.contentsOfDirectory(atPath: store.directory.path).map { Array($0.utf8) } == [Array("\(nfc).yaml".utf8)])

        // Invisible characters: each would look like another name.
        for bad in ["web\u{200D}cam", "web\u{200B}cam", "\u{FEFF}webcam", "web\u{2060}cam", "web\u{202E}mac", "web\u{200E}cam",
                    "web\u{180E}cam", "web\u{FE0F}cam", "web\u{3164}cam", "web cam", "web\tcam", "web\ncam", "web/cam", "..", ".hidden",
                    "\u{301}webcam", "-\u{301}", String(repeating: "\u{301}", count: 50), String(repeating: "\u{301}", count: 300),
                    "a" + String(repeating: "\u{301}", count: 300), "webcam.yaml", "webcam.JSON", "webcam.txt", ""] {
            #expect(throws: MarkerKitError.self, "\(bad.unicodeScalars.map { String($0.value, radix: 16) })") {
                try CalibrationStore.normalized(name: bad)
            }
            #expect(throws: MarkerKitError.self) { try CalibrationLocation(name: bad, in: store) }
            #expect(store.storedFile(for: bad) == nil)
        }
        do {
            _ = try CalibrationStore.normalized(name: "web\u{200D}cam")
        } catch let error as MarkerKitError {
            #expect(error.exitCode == 64 && error.description.contains("U+200D") && error.description.contains("web\\u{200D}cam"), "\(error)")
        }
        do {
            _ = try CalibrationStore.normalized(name: String(repeating: "\u{301}", count: 300))
        } catch let error as MarkerKitError {
            #expect(error.exitCode == 64 && error.description.count < 400 && error.description.contains("600 bytes"), "\(error)")
        }
        // The limit is in bytes of UTF-8: 100 fit, 101 do not, however many characters they are.
        #expect(try CalibrationStore.normalized(name: String(repeating: "a", count: 100)).utf8.count == 100)
        #expect(try CalibrationStore.normalized(name: String(repeating: "\u{E9}", count: 50)).utf8.count == 100)
        #expect(throws: MarkerKitError.self) { try CalibrationStore.normalized(name: String(repeating: "a", count: 101)) }
        #expect(throws: MarkerKitError.self) { try CalibrationStore.normalized(name: String(repeating: "e\u{301}", count: 51)) }
        // Letters and digits of any script, with their accents, and - _ . stay names.
        for good in ["webcam", "left-2", "cam_1.v2", "Kamera\u{308}", "\u{30AB}\u{30E1}\u{30E9}", "\u{915}\u{94D}\u{937}", "\u{661}\u{662}"] {
            #expect(throws: Never.self) { try CalibrationStore.normalized(name: good) }
        }
    }

    /// A store that hides its path (the server's) names files by their names only, never by the absolute
    /// path the store's folder has.
    @Test func errorsNameNoAbsolutePath() throws {
        let dir = try folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = CalibrationStore(directory: dir.appendingPathComponent("Calibrations")).hidingPath()
        try store.save(Self.camera("webcam"), force: false)
        try Data("%YAML:1.0\ncamera_matrix: [1, 2\n".utf8).write(to: store.directory.appendingPathComponent("broken.yaml"))
        var messages: [String] = []
        func note(_ body: () throws -> Void) {
            do { try body() } catch { messages.append("\(error)") }
        }
        note { try store.save(Self.camera("webcam"), force: false) }
        note { _ = try store.resolve("broken") }
        note { _ = try store.resolve("nothere") }
        note { _ = try store.resolve("nothere.yaml") }
        try FileManager.default.setAttributes([.posixPermissions: 0o500], ofItemAtPath: store.directory.path)
        defer { try? FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: store.directory.path) }
        if getuid() != 0 { note { try store.save(Self.camera("other"), force: false) } }
        #expect(messages.count >= 4)
        for message in messages { #expect(!message.contains(dir.path), "\(message)") }
        #expect(messages[0] == "'webcam.yaml' exists (not replaced)")
        #expect(messages[1].contains("'broken.yaml' is malformed"))
    }

    /// The store's folder: the environment's, else a project's Calibrations/, else the user's
    /// data folder; and messages name it by absolute path.
    @Test func theStoreIsFoundByOneRuleAndNamedByItsPath() throws {
        let dir = try folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let work = dir.path
        let env = CalibrationStore.located(environment: ["MARKERKIT_CALIBRATIONS": "cams", "XDG_DATA_HOME": "/x"], workingDirectory: work)
        #expect(env.origin == .environment && env.directory.path == "\(work)/cams")
        let user = CalibrationStore.located(environment: ["XDG_DATA_HOME": "/x/share", "HOME": "/home/ada"], workingDirectory: work)
        #expect(user.origin == .userData && user.directory.path == "/x/share/markerkit/calibrations")
        // A relative XDG_DATA_HOME is ignored, as the XDG specification says.
        let home = CalibrationStore.located(environment: ["XDG_DATA_HOME": "share", "HOME": "/home/ada"], workingDirectory: work)
        #expect(home.directory.path == "/home/ada/.local/share/markerkit/calibrations")
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("Calibrations"), withIntermediateDirectories: false)
        let project = CalibrationStore.located(environment: ["HOME": "/home/ada"], workingDirectory: work)
        #expect(project.origin == .project && project.directory.path == "\(work)/Calibrations")
        do {
            _ = try project.resolve("webcam")
            Issue.record("resolved a name the store does not hold")
        } catch {
            #expect("\(error)" == "no calibration 'webcam': not a name in \(work)/Calibrations/", "\(error)")
        }
        // Stored in a user data folder that does not exist yet: made on the first store.
        let fresh = CalibrationStore.located(environment: ["XDG_DATA_HOME": "\(work)/new/share"], workingDirectory: "/")
        let url = try fresh.save(Self.camera("webcam"), force: false)
        let resolved = try fresh.resolve("webcam")
        #expect(url.path == "\(work)/new/share/markerkit/calibrations/webcam.yaml" && resolved.name == "webcam")
    }
}

import Foundation
@testable import MarkerKit

/// Runs a reference script of Tests/References with Debian's python3 (its python3-opencv, python3-yaml and
/// python3-mrcal, which scripts/install-deps --test installs): the request as JSON on stdin, the answer
/// as a JSON object on stdout. A failing script throws with its last messages.
enum Python {
    static func run(_ script: String, _ request: [String: Any]) throws -> [String: Any] {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("References/\(script)")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [url.path]
        let input = Pipe(), output = Pipe(), errors = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        input.fileHandleForWriting.write(try JSONSerialization.data(withJSONObject: request))
        try input.fileHandleForWriting.close()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        let messages = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0, let answer = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw MarkerKitError.badInput("\(script) failed (\(process.terminationStatus)): \(messages.suffix(600))")
        }
        return answer
    }
}

import ArgumentParser
import Foundation
import MarkerKit

@main
struct MarkerKitCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "markerkit",
        abstract: "Fiducial markers and cameras: printable sheets, marker detection and pose.",
        discussion: """
        Markers of every OpenCV 4.6 predefined dictionary, bit for bit (--dictionary: \(MarkerDictionary.Name.shortNames); \
        default aruco-original, the classic ArUco 5x5 code DICT_ARUCO_ORIGINAL, IDs 0-1023). \
        Every size takes a unit: 40mm, 4cm, 1.5in, 0.04m, 72pt (from 0.001 mm to 1 km); every number has a \
        range, and a value outside it is refused with exit 64.

        Exit codes: 0 success, 1 some inputs failed (each named), 64 bad argument, 65 bad input data, 66 missing input, \
        70 internal error, 73 cannot write output, 130 stopped by Ctrl-C (verify and calibrate write nothing; \
        capture, track and serve stop cleanly and keep what they saved, exit 0).

        Examples:
          markerkit generate markers --ids 0-23 --size 40mm -o sheet.pdf
          markerkit generate checkerboard --inner 9x6 --square 20mm -o board.pdf
        """,
        version: MarkerKitVersion.string,
        subcommands: [Generate.self, Detect.self, Calibrate.self, Calibrations.self, Undistort.self, Render.self, Verify.self, Capture.self, Serve.self, Track.self, Bench.self]
    )

    /// Parses and runs; every failure becomes one line on stderr and a documented exit code.
    static func main() {
        let arguments = ArgumentsPreflight.joiningNegativeValues(Array(CommandLine.arguments.dropFirst()))
        if let unknown = ArgumentsPreflight.unknownSubcommand(arguments, root: self) { fail("\(unknown) (see --help)", code: 64) }
        do {
            var command = try parseAsRoot(arguments)
            try command.run()
        } catch let error as MarkerKitError {
            fail(error.cliMessage, code: error.exitCode)
        } catch let code as ExitCode {
            Foundation.exit(code.rawValue) // already reported, line by line

        } catch {
            let code = exitCode(for: error)
            if code == .success { exit(withError: error) } // --help, --version
            let message = oneLine(message(for: error))
            fail("\(message) (see --help)", code: code.rawValue)
        }
    }

    /// A parser message on one line: its list of allowed values ("Please provide one of the following:"
    /// then a line "  - x" each) as "one of: x, y".
    static func oneLine(_ message: String) -> String {
        var parts: [String] = [], values: [String] = []
        let message = message.replacingOccurrences(of: "Please provide one of the following:", with: "Use one of:")
        for line in message.split(whereSeparator: \.isNewline).map(String.init) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix("- ") { values.append(String(trimmed.dropFirst(2))); continue }
            parts.append(trimmed)
        }
        if !values.isEmpty { parts.append(values.joined(separator: ", ")) }
        // Lines that end a sentence or open a list run on; others are set apart by "; ".
        return parts.enumerated().map { k, part in
            k == 0 ? part : (parts[k - 1].hasSuffix(".") || parts[k - 1].hasSuffix(":") ? " " : "; ") + part
        }.joined()
    }

    static func fail(_ message: String, code: Int32) -> Never {
        FileHandle.standardError.write(Data("markerkit: error: \(message)\n".utf8))
        Foundation.exit(code)
    }
}

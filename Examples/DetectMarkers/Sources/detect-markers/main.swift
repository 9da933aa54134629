import Foundation
import MarkerKit

// Prints the IDs and corners of the DICT_ARUCO_ORIGINAL markers in each image named on the command line.
let paths = CommandLine.arguments.dropFirst()
guard !paths.isEmpty else {
    FileHandle.standardError.write(Data("usage: detect-markers IMAGE...\n".utf8))
    exit(64)
}
let detector = MarkerDetector()
for path in paths {
    do {
        let image = try Grayscale.image(from: Frame(contentsOf: URL(fileURLWithPath: path)))
        let markers = try detector.detect(in: image)
        print("\(path): \(markers.count) markers: \(markers.map { String($0.id) }.joined(separator: " "))")
        for marker in markers {
            let corners = marker.corners.map { String(format: "(%.1f, %.1f)", $0.x, $0.y) }.joined(separator: " ")
            print("  \(marker.id): \(corners)")
        }
    } catch {
        FileHandle.standardError.write(Data("detect-markers: \(path): \(error)\n".utf8))
        exit(65)
    }
}

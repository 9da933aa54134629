import Foundation

/// Frames written as PNG (lossless) to a folder of their own for a peer in another process to read; the
/// folder goes when this does.
final class PeerFrames {
    let folder: URL
    let urls: [URL]

    init(_ images: [GrayImage]) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("markerkit-peer-frames-\(UUID().uuidString)")
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false)
            urls = try images.enumerated().map { index, image in
                let url = folder.appendingPathComponent(String(format: "frame_%04d.png", index))
                let png = try Frame(width: image.width, height: image.height, stride: image.width, format: .gray8, bytes: image.pixels).encoded(as: "png")
                try png.write(to: url)
                return url
            }
        } catch {
            try? FileManager.default.removeItem(at: folder)
            throw MarkerKitError.missingInput("cannot write frames for the peer in \(folder.deletingLastPathComponent().path): \(error.localizedDescription)")
        }
        self.folder = folder
    }

    deinit { try? FileManager.default.removeItem(at: folder) }
}

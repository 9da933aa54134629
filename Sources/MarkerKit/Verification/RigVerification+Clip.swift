import Foundation

extension RigVerification {
    /// Every file `writeClip` writes into its folder.
    public var clipFiles: [String] { cameras.indices.map { "cam\($0).avi" } + ["board.json", "truth.yaml"] }

    /// A clip per camera of a hand moving the board from view to view before the rig (each view held
    /// `hold` frames, `move` frames of motion between, at `fps`): `cam0.avi`, `cam1.avi`, ... whose frames
    /// are taken at the same instants, with `board.json` and `truth.yaml` (the true rig, in the store's rig
    /// format) beside them, for `capture` with several --device. The folder exists; its clip files are
    /// replaced only with `force`, and none is written until every frame is rendered.
    public func writeClip(into directory: URL, hold: Int = 7, move: Int = 3, fps: Double = 10, force: Bool) throws {
        try OutputFiles.checkDirectoryDestination(directory, names: clipFiles, force: force)
        let (poses, _) = try boardPoses()
        let renderer = SceneRenderer()
        var files = OutputFiles()
        let temporary = FileManager.default.temporaryDirectory.appendingPathComponent("markerkit-rig-clip-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: temporary, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: temporary) }
        for (c, camera) in cameras.enumerated() {
            let url = temporary.appendingPathComponent("cam\(c).avi")
            let writer = try VideoFileWriter(url: url, width: camera.imageWidth, height: camera.imageHeight, framesPerSecond: fps)
            var random = SeededRandom(seed: seed ^ UInt64(c + 1))
            func frame(_ pose: Pose3D, repeats: Int) throws {
                var d = Degradations()
                d.noise = noise
                d.blur = blur
                let scene = Scene(camera: camera, width: camera.imageWidth, height: camera.imageHeight,
                                  targets: [Target(pattern: charuco.map { .charuco($0) } ?? .checkerboard(board), pose: RigMath.compose(pose, then: extrinsics[c]))],
                                  degradations: d, seed: random.next())
                let gray = try renderer.render(scene)
                let picture = Frame(width: gray.width, height: gray.height, stride: 3 * gray.width, format: .bgr8, bytes: gray.pixels.flatMap { [$0, $0, $0] })
                for _ in 0..<repeats { try writer.write(picture) }
            }
            for (v, pose) in poses.enumerated() {
                try frame(pose, repeats: hold)
                guard v + 1 < poses.count else { break }
                let next = poses[v + 1]
                for step in 1...max(move, 1) {
                    let f = Double(step) / Double(move + 1)
                    try frame(Pose3D(rvec: zip(pose.rvec, next.rvec).map { $0 + ($1 - $0) * f }, tvec: zip(pose.tvec, next.tvec).map { $0 + ($1 - $0) * f }), repeats: 1)
                }
            }
            try writer.finish()
            files.add(try Data(contentsOf: url), at: directory.appendingPathComponent("cam\(c).avi"))
        }
        files.add(try BoardSpec.rendered(target).encoded(), at: directory.appendingPathComponent("board.json"))
        let truth = try RigFormat.rig(name: "truth", cameras: cameras, extrinsics: extrinsics, units: "mm")
        files.add(try RigStorageFormat.encode(truth), at: directory.appendingPathComponent("truth.yaml"))
        try files.commit()
    }
}

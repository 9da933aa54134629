import ArgumentParser
import Foundation
import MarkerKit

/// `capture` with several --device: a rig's synchronized views, each camera's in its own folder.
extension Capture {
    func runRig() throws {
        guard auto, let board else { throw MarkerKitError.invalidArgument("several --device capture a rig's views: give --board board.json and --auto") }
        guard let out else { throw MarkerKitError.invalidArgument("give --out DIR for the saved views") }
        try InputRange.check(count, in: CaptureSession.counts, "--count")
        if every != nil || untilSigma != nil { throw MarkerKitError.invalidArgument("--every and --until-sigma take one camera") }
        let names = try rig.names(count: devices.count)
        if rig.maxGap != nil { _ = try rig.gap(rates: []) } // its form, before any camera is opened
        let location = try calibrate.map { name in try naming("--calibrate: ") { try CalibrationLocation(name: name) } }
        let target = try BoardSpec.read(from: URL(fileURLWithPath: board)).calibrationTarget()
        try location?.checkDestination(force: force)
        try OutputFiles.checkDirectoryDestination(URL(fileURLWithPath: out), names: RigCaptureSession.fileNames(names: names, count: count), force: force)
        let lockRequest = try lock.request()
        var feeds: [FrameFeed] = []
        defer { for feed in feeds { feed.stop() } }
        for device in devices {
            let feed = try camera.open(device, color: true, lock: lockRequest)
            feeds.append(feed)
            reportCameraSetup(feed.camera, locking: lockRequest != nil)
        }
        let gap = try rig.gap(rates: feeds.compactMap { $0.camera?.framesPerSecond })
        var session = try RigCaptureSession(directory: URL(fileURLWithPath: out), names: names, devices: devices, target: target, count: count, maxGap: gap)
        let directory = try OutputFolder(out, option: "--out").url
        Interrupt.install()
        let outcome = try session.run(feeds: feeds, shouldStop: { Interrupt.requested }, onUpdate: { update in
            let bars = update.coverage.enumerated().map { c, values in "\(names[c]) " + values.map { String(format: "%.0f%%", 100 * $0) }.joined(separator: " ") }
            let verdicts = update.verdicts.enumerated().compactMap { c, v in v.map { "\(names[c]) \($0)" } }.joined(separator: ", ")
            let pairs = update.pairs.map { String(format: "%@-%@ baseline ±%.3f %@ rotation ±%.3f°", $0.first, $0.second, $0.baselineSigma, $0.units, $0.rotationSigma) }
            status(String(format: "sets %d/%d  gap %.1f ms  %@  coverage %@", update.saved + (update.saving ? 1 : 0), update.count, 1000 * update.gap,
                          verdicts, (bars + pairs).joined(separator: " | ")))
        })
        for feed in feeds { feed.stop() }
        endStatus()
        let kept = outcome.saved[0].count
        print(String(format: "saved %@ of %d cameras in %@/ (%@/) with rig.json; largest gap in a set %.1f ms (at most %.1f), %@ passed over as further apart%@",
                     counted(kept, "set"), names.count, directory.relativePath, names.joined(separator: "/, "), 1000 * outcome.largestGap, 1000 * gap,
                     counted(outcome.unmatched, "frame"), Interrupt.requested ? ", stopped by Ctrl-C" : ""))
        for pair in session.pairs { print(pair.line) }
        guard let location, let calibrate else {
            return print("calibrate them: markerkit calibrate --rig \(names.map { "\(directory.relativePath)/\($0)" }.joined(separator: " ")) --board \(board) --camera-names \(names.joined(separator: ","))")
        }
        var calibrator = Calibrator(target: target)
        calibrator.model = .opencv5
        let result = try RigCalibrator(calibrator: calibrator).calibrate(files: outcome.saved, names: names, name: location.name ?? calibrate)
        for line in RigSummary.lines(for: result.rig) { print(line) }
        try location.write(result.rig, force: force)
        print("stored \(location.shown)")
    }
}

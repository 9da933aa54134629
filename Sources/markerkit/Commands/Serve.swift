import ArgumentParser
import Foundation
import MarkerKit
import MarkerKitServer

struct Serve: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Calibrate from a browser: the live camera, the capture assistant, calibrate, store and download, sheets.",
        discussion: """
        Serves one page (open the address it prints) that shows the camera's picture with the board or the \
        markers drawn, the views the capture assistant keeps (as 'capture --auto'), their coverage and where \
        a calibration from them is least sure; its buttons keep a view, calibrate, store the result and \
        download its report and every export format; a form makes marker sheets and boards. The views go \
        to --out with capture.json, so 'markerkit calibrate DIR --board board.json' gives the same \
        calibration. The first browser controls the camera, later ones watch.

        With several --device (a rig; --board needed) the page shows the cameras side by side; a set is \
        kept as 'capture' keeps it with several --device (frames matched by their driver timestamps, every \
        camera finds the board), each camera's coverage is shown, and from 3 sets on the baseline and \
        rotation sigma of a rig solved from them; calibrate solves the rig as 'calibrate --rig' does.

        It listens on 127.0.0.1 unless --host says otherwise (loopback is judged on the address the host \
        resolves to). Only its own page can use it: the page carries a secret made for the run, which the \
        API and the live picture require (the address printed carries it too, for scripts); requests from \
        other web pages (another Origin), under another host name (DNS rebinding) or in a frame are refused. \
        Beyond loopback the page itself needs the secret. Ctrl-C stops it within a second; the kept views stay.

        Examples:
          markerkit serve --device /dev/video0 --board board.json
          markerkit serve --device clip.mp4 --board board.json --port 8090
          markerkit serve --device /dev/video0 --board board.json --host 0.0.0.0
          markerkit serve --device /dev/video0 --device /dev/video2 --camera-names left,right --board board.json
        """
    )

    @Option(name: .customLong("device"), help: ArgumentHelp("A camera (/dev/video0, a /dev/v4l/by-id/ link, or part of its name such as C920), a video file or a folder of images; several for a rig (default /dev/video0).", valueName: "device"))
    var devices: [String] = []
    @OptionGroup var rig: RigCaptureOptions
    @OptionGroup var camera: CameraOptions
    @OptionGroup var lock: LockOptions
    @OptionGroup var match: CalibrationMatchOptions
    @Option(help: ArgumentHelp("The board spec from 'markerkit generate checkerboard' or 'generate charuco'; without it markers are shown and views kept on request.", valueName: "board.json"))
    var board: String?
    @OptionGroup var dictionaryOption: DictionaryOption
    @Option(help: ArgumentHelp("Address or host name to listen on; anything that does not resolve to loopback requires the printed token for the page too.", valueName: "address")) var host = "127.0.0.1"
    @Option(help: ArgumentHelp("Port to listen on, 0-65535 (0: any free one).", valueName: "port")) var port = 8080
    @Option(name: .customLong("allow-host"), help: ArgumentHelp("Also answer to this host name (a reverse proxy's); repeatable. The server's own addresses and localhost are always allowed.", valueName: "name"))
    var allowHosts: [String] = []
    @Option(name: .customLong("out"), help: ArgumentHelp("Folder for the kept views and capture.json (default: views-DATE-TIME).", valueName: "dir")) var out: String?
    @Option(help: "How many views to keep at most, 1-10000.") var count = 30
    @Option(help: ArgumentHelp("Stop keeping views once a calibration from them is this sure (0.001-100 px, e.g. 0.3px), as capture --until-sigma.", valueName: "pixels"),
            transform: PixelsArgument.parse)
    var untilSigma: Double?
    @Flag(help: "Replace views that exist in --out (the page replaces a stored calibration only when its replace box is ticked).") var force = false

    func run() throws {
        try InputRange.check(port, in: 0...65535, "--port")
        _ = try ListenAddress(host: host) // refused before the camera is opened
        for name in allowHosts { try ListenAddress.checkAllowedHost(name) }
        try InputRange.check(count, in: CaptureSession.counts, "--count")
        if untilSigma != nil && board == nil { throw MarkerKitError.invalidArgument("--until-sigma needs --board board.json") }
        let target = try board.map { try BoardSpec.read(from: URL(fileURLWithPath: $0)).calibrationTarget() }
        let views = try OutputFolder(out ?? Self.defaultFolder(), option: "--out")
        var settings = ServerSettings()
        settings.host = host
        settings.port = port
        settings.allowedHosts = allowHosts
        let server: MarkerKitServer
        var opened: (any Station)?
        let options: FrameSources.Options
        do {
            let stored = try match.stored()
            options = try camera.options(color: true, lock: CalibrationMatchOptions.request(try lock.request(), holding: stored))
            let station: any Station = devices.count > 1 ? try rigStation(options: options, target: target, directory: views.url)
                                             : try cameraStation(options: options, target: target, directory: views.url)
            opened = station
            try match.check(stored, camera: station.camera)
            server = try MarkerKitServer(station: station, desk: CalibrationDesk(store: .default, target: target), settings: settings)
        } catch {
            opened?.stop() // puts the cameras' settings back: the process ends before the station is released
            views.removeIfCreated()
            throw error
        }
        reportCameraSetup(server.station.camera, locking: options.setup.lock != nil)
        Interrupt.unblock()
        let shown = host.contains(":") ? "[\(host)]" : host
        let token = settings.token, open = !server.pageNeedsToken, folder = views.url.relativePath, store = CalibrationStore.default.shownDirectory
        let what = "\(devices.isEmpty ? "/dev/video0" : devices.joined(separator: " + ")), \(target?.summary ?? "no board")"
        do {
            try Blocking.wait {
                try await server.run { port in
                    var lines = "serving http://\(shown):\(port)/?token=\(token)  (\(what); views into \(folder)/, calibrations into \(store); Ctrl-C stops)\n"
                    if !open { lines += "listening beyond loopback: anyone who reaches this machine with the token can use the camera\n" }
                    FileHandle.standardOutput.write(Data(lines.utf8))
                }
            }
        } catch {
            if server.station.kept.count == 0 { views.removeIfCreated() }
            throw error
        }
        print("stopped; \(counted(server.station.kept.count, devices.count > 1 ? "set" : "view")) kept in \(folder)/")
    }

    static func defaultFolder() -> String {
        let format = DateFormatter()
        format.dateFormat = "'views-'yyyyMMdd-HHmmss"
        format.timeZone = TimeZone(identifier: "UTC")
        return format.string(from: Date())
    }
}

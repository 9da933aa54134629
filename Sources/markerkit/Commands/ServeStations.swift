import ArgumentParser
import Foundation
import MarkerKit
import MarkerKitServer

/// What `serve` serves: one camera, or with several --device a rig.
extension Serve {
    func cameraStation(options: FrameSources.Options, target: CalibrationTarget?, directory: URL) throws -> CameraStation {
        if rig.cameraNames != nil || rig.maxGap != nil { throw MarkerKitError.invalidArgument("--camera-names and --max-gap go with several --device") }
        var station = CameraStation.Configuration(device: devices.first ?? "/dev/video0", directory: directory)
        station.options = options
        station.target = target
        station.dictionary = dictionaryOption.dictionary
        station.count = count
        station.untilSigma = untilSigma
        station.force = force
        return try CameraStation(station)
    }

    func rigStation(options: FrameSources.Options, target: CalibrationTarget?, directory: URL) throws -> RigStation {
        guard let target else { throw MarkerKitError.invalidArgument("several --device serve a rig's capture: give --board board.json") }
        if untilSigma != nil { throw MarkerKitError.invalidArgument("--until-sigma takes one camera") }
        var station = RigStation.Configuration(devices: devices, names: try rig.names(count: devices.count), target: target, directory: directory)
        station.maxGap = try rig.maxGap.map { _ in try rig.gap(rates: []) }
        station.options = options
        station.count = count
        station.force = force
        return try RigStation(station)
    }
}

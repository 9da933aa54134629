import Foundation

extension CameraState {
    /// The state of a streaming camera now: its names, its stream and its optics' controls.
    public init(camera: V4L2Camera) {
        let controls = camera.controls.all()
        var optics: [String: Int64] = [:]
        for control in controls where CameraState.opticsControls.contains(control.name) {
            if let value = control.value { optics[control.name] = value }
        }
        self.init(device: camera.path, stablePath: camera.stablePath, card: camera.capabilities.card, driver: camera.capabilities.driver,
                  busInfo: camera.capabilities.busInfo, pixelFormat: camera.fourcc, width: camera.width, height: camera.height,
                  fps: camera.framesPerSecond, optics: optics)
    }
}

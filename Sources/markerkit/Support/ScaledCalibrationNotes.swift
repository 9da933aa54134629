import MarkerKit

/// The note that a calibration was scaled to pictures of another size, once per size (`detect`,
/// `undistort` and `track` on files; the library scales it, by the rule of `CalibrationFit`).
struct ScaledCalibrationNotes {
    let calibration: CameraCalibration?
    private var told = Set<[Int]>()

    init(_ calibration: CameraCalibration?) { self.calibration = calibration }

    mutating func picture(width: Int, height: Int) {
        guard let calibration, calibration.isScaled(forWidth: width, height: height), told.insert([width, height]).inserted else { return }
        note(CalibrationFit.notice(calibration, width: width, height: height, pictures: .files))
    }
}

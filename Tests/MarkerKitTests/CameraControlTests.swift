import Foundation
import Testing
@testable import MarkerKit

/// Camera controls as typed by users, and a calibration used on a camera in another state.
/// The controls' ioctls are exercised against the simulated camera in the CLI tests.
@Suite struct CameraControlTests {
    static func control(_ name: String, kind: V4L2Control.Kind, min: Int64 = 0, max: Int64 = 1, step: Int64 = 1, value: Int64 = 0,
                        menu: [V4L2Control.MenuEntry] = [], readOnly: Bool = false) -> V4L2Control {
        V4L2Control(id: 1, name: name, kind: kind, minimum: min, maximum: max, step: step, defaultValue: min, value: value, menu: menu,
                    readOnly: readOnly, inactive: false, writeOnly: false, section: "Camera Controls")
    }

    @Test func namesAreV4L2CtlsNames() {
        #expect(V4L2Control.variableName("Focus, Automatic Continuous") == "focus_automatic_continuous")
        #expect(V4L2Control.variableName("Exposure Time, Absolute") == "exposure_time_absolute")
        #expect(V4L2Control.variableName("White Balance Temperature") == "white_balance_temperature")
        #expect(V4L2Control.variableName("  Power Line Frequency ") == "power_line_frequency")
        #expect(V4L2Control.variableName("Zoom, Absolute") == "zoom_absolute")
    }

    @Test func valuesAreCheckedAgainstWhatTheControlAllows() throws {
        let focus = Self.control("focus_absolute", kind: .integer, min: 0, max: 250, step: 5)
        #expect(try focus.value(from: "35") == 35)
        for bad in ["300", "-5", "33", "abc", "", "99999999999999999999999999", "1e308"] {
            #expect(throws: MarkerKitError.self, "\(bad)") { try focus.value(from: bad) }
            do { _ = try focus.value(from: bad) } catch let error as MarkerKitError {
                #expect(error.description.contains("0 to 250 in steps of 5"), "\(error)")
                #expect(error.exitCode == 64)
            }
        }
        let auto = Self.control("focus_automatic_continuous", kind: .boolean)
        #expect(try auto.value(from: "off") == 0 && auto.value(from: "1") == 1 && auto.value(from: "true") == 1)
        #expect(throws: MarkerKitError.self) { try auto.value(from: "2") }
        let exposure = Self.control("auto_exposure", kind: .menu, min: 0, max: 3, value: 3,
                                    menu: [.init(index: 1, name: "Manual Mode"), .init(index: 3, name: "Aperture Priority Mode")])
        #expect(try exposure.value(from: "1") == 1 && exposure.value(from: "manual mode") == 1 && exposure.value(from: "Aperture-Priority Mode") == 3)
        do { _ = try exposure.value(from: "2"); Issue.record("2 is no entry") } catch let error as MarkerKitError {
            #expect(error.description == "auto_exposure=2 is not allowed: auto_exposure takes 1 (Manual Mode) or 3 (Aperture Priority Mode)")
        }
        let readOnly = Self.control("pan_speed", kind: .integer, min: -10, max: 10, readOnly: true)
        do { _ = try readOnly.value(from: "1"); Issue.record("read-only") } catch let error as MarkerKitError {
            #expect(error.description.contains("read-only"))
        }
    }

    @Test func settingsAreWrittenNameEqualsValue() throws {
        #expect(try V4L2Controls.split("focus_absolute=40") == ("focus_absolute", "40"))
        #expect(try V4L2Controls.split("a==b") == ("a", "=b"))
        for bad in ["focus", "=3", ""] {
            #expect(throws: MarkerKitError.self) { try V4L2Controls.split(bad) }
        }
    }

    @Test func aListedControlReadsAsV4L2CtlPrintsIt() {
        let exposure = Self.control("auto_exposure", kind: .menu, min: 0, max: 3, value: 3,
                                    menu: [.init(index: 1, name: "Manual Mode"), .init(index: 3, name: "Aperture Priority Mode")])
        let lines = exposure.listing
        #expect(lines[0].hasSuffix("auto_exposure 0x00000001 (menu)   : min=0 max=3 default=0 value=3 (Aperture Priority Mode)"), "\(lines[0])")
        #expect(lines.count == 3 && lines[1].hasSuffix("1: Manual Mode"))
    }

    @Test func aCameraIsFoundByPartOfItsName() throws {
        let cards = [(node: "/dev/video0", card: "Integrated Camera: Integrated C"), (node: "/dev/video2", card: "HD Pro Webcam C920")]
        #expect(try V4L2Device.choose("c920", among: cards) == "/dev/video2")
        #expect(try V4L2Device.choose("brio", among: cards) == nil)
        #expect(throws: MarkerKitError.self) { try V4L2Device.choose("cam", among: cards) }
    }

    @Test func theLockSnapsAValueToTheControlsStep() {
        let focus = Self.control("focus_absolute", kind: .integer, min: 0, max: 250, step: 5)
        #expect(CameraLock.snap(33, to: focus) == 35 && CameraLock.snap(32, to: focus) == 30)
        #expect(CameraLock.snap(-4, to: focus) == 0 && CameraLock.snap(999, to: focus) == 250)
    }

    static func webcam(width: Int = 1280, height: Int = 720, camera: CameraState? = nil) throws -> CameraCalibration {
        var c = try CameraCalibration(name: "webcam", model: .opencv5, cameraMatrix: [1000, 0, 639.5, 0, 1002, 359.5, 0, 0, 1],
                                      distortion: [0.1, -0.2, 0.001, 0.002, 0.05], imageWidth: width, imageHeight: height)
        c.camera = camera
        return c
    }

    @Test func anotherSizeOfTheSameAspectGetsScaledIntrinsics() throws {
        let fit = try CalibrationFit(try Self.webcam(), width: 640, height: 360, live: nil)
        #expect(fit.calibration.cameraMatrix == [500, 0, 319.5, 0, 501, 179.5, 0, 0, 1])
        #expect(fit.calibration.distortion == [0.1, -0.2, 0.001, 0.002, 0.05])
        #expect(fit.calibration.imageWidth == 640 && fit.notices.count == 1 && fit.notices[0].contains("scaled by 0.5"))
        #expect(try CalibrationFit(try Self.webcam(), width: 1280, height: 720, live: nil).notices.isEmpty)
        #expect(throws: MarkerKitError.self) { try CalibrationFit(try Self.webcam(), width: 640, height: 360, live: nil, scale: false) }
        do { _ = try CalibrationFit(try Self.webcam(), width: 640, height: 480, live: nil); Issue.record("4:3 from 16:9") } catch let error as MarkerKitError {
            #expect(error.description.contains("another aspect ratio") && error.exitCode == 64)
        }
    }

    /// A calibration's size is bounded where it is made, so comparing it with a picture's (w0 h = h0 w) cannot
    /// overflow; the size rule answers alike for both ways of asking.
    @Test func aCalibrationsSizeIsBoundedAndComparedOneWay() throws {
        for (w, h) in [(Int.max, 480), (640, Int.max), (100_001, 480)] {
            #expect(throws: MarkerKitError.badInput("image size \(w)x\(h) is outside 0-100000 each")) {
                try CameraCalibration(name: "big", cameraMatrix: [500, 0, 320, 0, 500, 240, 0, 0, 1], distortion: [0, 0, 0, 0, 0], imageWidth: w, imageHeight: h)
            }
        }
        let webcam = try Self.webcam(), huge = CameraCalibration.largestSide
        #expect(CalibrationFit.relation(of: webcam, toWidth: huge, height: huge) == .otherAspect)
        #expect(CalibrationFit.relation(of: webcam, toWidth: 640, height: 360) == .sameAspect && webcam.isScaled(forWidth: 640, height: 360))
        #expect(CalibrationFit.relation(of: webcam, toWidth: 1280, height: 720) == .asItIs && !webcam.isScaled(forWidth: 1280, height: 720))
        #expect(try webcam.fitted(width: 1280, height: 720).cameraMatrix == webcam.cameraMatrix)
    }

    @Test func differentOpticsAreNamedInWarnings() throws {
        let made = CameraState(device: "/dev/video0", card: "HD Pro Webcam C920", driver: "uvcvideo", busInfo: "", pixelFormat: "MJPG",
                               width: 1280, height: 720, optics: ["focus_automatic_continuous": 0, "focus_absolute": 30, "zoom_absolute": 100])
        var now = made
        #expect(try CalibrationFit(try Self.webcam(camera: made), width: 1280, height: 720, live: now).warnings.isEmpty)
        now.optics = ["focus_automatic_continuous": 1, "focus_absolute": 45, "zoom_absolute": 120]
        let warnings = try CalibrationFit(try Self.webcam(camera: made), width: 1280, height: 720, live: now).warnings
        #expect(warnings.count == 3, "\(warnings)")
        #expect(warnings.contains { $0.contains("autofocus is on") })
        #expect(warnings.contains { $0.contains("focus 30") && $0.contains("focus 45") })
        #expect(warnings.contains { $0.contains("zoom 100") && $0.contains("zoom 120") })
    }

    @Test func aLostCameraHasItsOwnDocumentedExitCode() {
        let lost = V4L2Camera.ioctlError("read a frame from", "/dev/video0", ENODEV, after: 120)
        #expect(lost == .cameraLost("camera '/dev/video0' disconnected after 120 frames (unplugged?)"))
        #expect(lost.exitCode == 74 && MarkerKitError.documentedExitCodes.contains(74))
    }
}

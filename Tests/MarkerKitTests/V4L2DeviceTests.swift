import Foundation
import Testing
@testable import MarkerKit

/// There is no camera on the build machines: these exercise libv4l2's error paths for real.
@Suite struct V4L2DeviceTests {
    @Test func anAbsentDeviceSuggestsTheList() {
        #expect(throws: MarkerKitError.advised(.missingInput("no camera at '/dev/video-absent-77'"), .listCameras)) {
            try V4L2Device.capabilities(of: "/dev/video-absent-77")
        }
    }

    @Test func aFileThatIsNoVideoDeviceIsNamed() throws {
        do {
            _ = try V4L2Device.capabilities(of: "/dev/null")
            Issue.record("/dev/null is no camera")
        } catch let error as MarkerKitError {
            #expect(error.description.contains("'/dev/null' is not a V4L2 video device"))
        }
    }

    @Test func deviceNodesAreListedInNumericOrder() throws {
        let directory = try TemporaryDirectory()
        for name in ["video10", "video2", "video0", "videoX", "vbi0"] {
            _ = FileManager.default.createFile(atPath: directory.file(name).path, contents: nil)
        }
        #expect(V4L2Device.deviceNodes(in: directory.url.path) == ["video0", "video2", "video10"].map { "\(directory.url.path)/\($0)" })
    }
}

import CVBridge
import Foundation
import Testing
@testable import MarkerKit

/// Reading image files: special files are refused without being waited on.
@Suite struct ImageInputTests {
    /// Reading a FIFO used to wait in open(2) for a writer that never comes. The bridge now opens
    /// without blocking and refuses what is not a regular file. Should a read block again, a writer
    /// arrives after 10 s (and every second after) and closes at once, so the test fails instead of hanging.
    @Test func readingAFIFOFailsAtOnceInsteadOfWaitingForAWriter() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("x.png").path
        #expect(mkfifo(path, 0o644) == 0)
        DispatchQueue.global().asyncAfter(deadline: .now() + 10) {
            for _ in 0..<60 {
                let writer = open(path, O_WRONLY | O_NONBLOCK)
                if writer >= 0 { close(writer) }
                sleep(1)
            }
        }
        let clock = ContinuousClock()
        let started = clock.now
        #expect(throws: InputCatalog.notARegularFile(path, "a FIFO")) { try GrayImage(contentsOf: URL(fileURLWithPath: path)) }
        #expect(clock.now - started < .seconds(5), "reading a FIFO waited for a writer")
        // The bridge on its own, without the Swift side's checks: fails, and at once.
        var image = cvb_image()
        #expect(cvb_image_read(path, 1, &image) < 0)
        #expect(clock.now - started < .seconds(5), "cvb_image_read waited for a writer")
    }
}

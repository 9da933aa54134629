import Testing
@testable import MarkerKit

@Suite struct FrameTests {
    /// Gray from BGR and BGRA frames with row padding: OpenCV's BT.601 weights (0.299 R + 0.587 G + 0.114 B).
    @Test func colourFramesBecomeGrayWithBT601Weights() throws {
        let pixels: [(b: UInt8, g: UInt8, r: UInt8)] = [(0, 0, 255), (0, 255, 0), (255, 0, 0), (40, 80, 120)]
        let expected: [UInt8] = [76, 150, 29, 87]
        for channels in [3, 4] {
            let stride = 2 * channels + 3 // padded rows
            var bytes = [UInt8](repeating: 0, count: stride * 2)
            for (i, p) in pixels.enumerated() {
                let at = (i / 2) * stride + (i % 2) * channels
                bytes[at] = p.b; bytes[at + 1] = p.g; bytes[at + 2] = p.r
                if channels == 4 { bytes[at + 3] = 255 }
            }
            let frame = Frame(width: 2, height: 2, stride: stride, format: channels == 3 ? .bgr8 : .bgra8, bytes: bytes)
            #expect(try Grayscale.image(from: frame).pixels == expected, "\(channels) channels")
        }
        let gray = Frame(width: 2, height: 2, stride: 5, format: .gray8, bytes: [1, 2, 0, 0, 0, 3, 4, 0, 0, 0])
        #expect(try Grayscale.image(from: gray).pixels == [1, 2, 3, 4])
    }
}

import MarkerKitKernels

/// Stage 2: dark regions against their neighbourhood, one binary image per window (dark = 255), by
/// OpenCV's mean adaptive threshold.
public enum AdaptiveThreshold {
    public static func binary(_ image: GrayImage, window: Int, constant: Double) throws -> GrayImage {
        var result = GrayImage.empty
        try binary(image, window: window, constant: constant, into: &result)
        return result
    }

    /// The same into `binary`, reusing its pixels when it already has the image's size.
    public static func binary(_ image: GrayImage, window: Int, constant: Double, into binary: inout GrayImage) throws {
        GrayImage.reuse(&binary, width: image.width, height: image.height)
        let status = image.pixels.withUnsafeBufferPointer { gray in
            binary.pixels.withUnsafeMutableBufferPointer { out in
                mkk_adaptive_threshold(gray.baseAddress, Int32(image.width), Int32(image.height), Int32(image.width),
                                       Int32(window), constant, out.baseAddress)
            }
        }
        try Bridge.check(status)
    }

    /// The binary images of every window in one sweep (one running integral of the frame serves all
    /// windows), into `binaries`: image k is pixels k * width * height ..< (k + 1) * width * height. The
    /// top and bottom halves of the frame run on two cores. `binaries` keeps its memory when it already
    /// has the size.
    public static func binaries(_ image: GrayImage, windows: [Int], constant: Double, into binaries: inout [UInt8]) throws {
        let size = windows.count * image.width * image.height
        if binaries.count != size {
            binaries.removeAll(keepingCapacity: true)
            binaries.append(contentsOf: repeatElement(0, count: size))
        }
        guard size > 0 else { return }
        // The windows as 32-bit values on the stack (at most a few).
        try withUnsafeTemporaryAllocation(of: Int32.self, capacity: windows.count + 2) { memory in
            for (i, w) in windows.enumerated() { memory[i] = Int32(w) }
            let status = memory.baseAddress! + windows.count // one status per band
            let bands = image.height >= 64 ? 2 : 1
            image.pixels.withUnsafeBufferPointer { gray in
                binaries.withUnsafeMutableBufferPointer { out in
                    TwoCores.forEach(bands, Bands(gray: gray.baseAddress!, width: image.width, height: image.height, windows: memory.baseAddress!,
                                                  count: windows.count, constant: constant, out: out.baseAddress!, bands: bands, status: status))
                }
            }
            for band in 0..<bands where status[band] < 0 {
                throw MarkerKitError.internalFailure("adaptive threshold failed on band \(band) (\(status[band]))")
            }
        }
    }

    /// One band of rows of every window.
    private struct Bands: TwoCoresJob {
        let gray: UnsafePointer<UInt8>
        let width: Int, height: Int
        let windows: UnsafePointer<Int32>
        let count: Int
        let constant: Double
        let out: UnsafeMutablePointer<UInt8>
        let bands: Int
        let status: UnsafeMutablePointer<Int32>

        func run(_ band: Int, worker: Int) {
            let begin = height * band / bands, end = height * (band + 1) / bands
            status[band] = mkk_adaptive_threshold_rows(gray, Int32(width), Int32(height), Int32(width), windows, Int32(count), constant,
                                                       out, Int32(begin), Int32(end))
        }
    }
}

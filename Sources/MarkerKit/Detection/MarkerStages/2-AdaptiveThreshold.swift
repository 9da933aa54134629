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
    /// frame's rows run in bands on the worker pool, one band per `bandPixels` pixels (at least 2 when the
    /// frame has 64 rows) up to the pool's threads. `binaries` keeps its memory when it already has the size.
    /// A band's own box-sum buffer (`mkk_adaptive_threshold_rows_in`): band k of every frame uses
    /// workspace k, so what a band allocates does not depend on which worker ran it.
    final class Workspace {
        let pointer: OpaquePointer
        init() {
            guard let made = mkk_threshold_workspace_create() else { fatalError("out of memory for a threshold workspace") }
            pointer = made
        }
        deinit { mkk_threshold_workspace_destroy(pointer) }
    }

    /// With `workspaces` (one per band there may be: `WorkerPool.cores`), each band sums in its own; without,
    /// in the buffer of the thread that runs it.
    public static func binaries(_ image: GrayImage, windows: [Int], constant: Double, into binaries: inout [UInt8]) throws {
        try self.binaries(image, windows: windows, constant: constant, workspaces: nil, maxWorkers: 0, into: &binaries)
    }

    static func binaries(_ image: GrayImage, windows: [Int], constant: Double, workspaces: [Workspace]?, maxWorkers: Int,
                         into binaries: inout [UInt8]) throws {
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
            let threads = WorkerPool.workers(atMost: maxWorkers)
            let bands = min(Self.bands(width: image.width, height: image.height, threads: threads), workspaces?.count ?? Int.max)
            image.pixels.withUnsafeBufferPointer { gray in
                binaries.withUnsafeMutableBufferPointer { out in
                    WorkerPool.forEach(bands, Bands(gray: gray.baseAddress!, width: image.width, height: image.height, windows: memory.baseAddress!,
                                                  count: windows.count, constant: constant, out: out.baseAddress!, bands: bands, status: status,
                                                  workspaces: workspaces))
                }
            }
            for band in 0..<bands where status[band] < 0 {
                throw MarkerKitError.internalFailure("adaptive threshold failed on band \(band) (\(status[band]))")
            }
        }
    }

    /// Pixels of one band's work: a band costs the helper's wake and its windows' margin rows again, which
    /// a band of about 100,000 pixels repays (a 640x480 frame in 2-3 bands, 4K in as many as there are cores).
    static let bandPixels = 100_000

    /// The bands a frame's rows are thresholded in with `threads` workers: as many as its pixels repay,
    /// each at least 32 rows, at most `threads`.
    static func bands(width: Int, height: Int, threads: Int) -> Int {
        guard height >= 64, threads > 1 else { return 1 }
        return max(2, min(threads, height / 32, width * height / bandPixels))
    }

    /// One band of rows of every window.
    private struct Bands: WorkerPoolJob {
        let gray: UnsafePointer<UInt8>
        let width: Int, height: Int
        let windows: UnsafePointer<Int32>
        let count: Int
        let constant: Double
        let out: UnsafeMutablePointer<UInt8>
        let bands: Int
        let status: UnsafeMutablePointer<Int32>
        let workspaces: [Workspace]?

        func run(_ band: Int, worker: Int) {
            let begin = height * band / bands, end = height * (band + 1) / bands
            if let workspaces {
                status[band] = mkk_adaptive_threshold_rows_in(workspaces[band].pointer, gray, Int32(width), Int32(height), Int32(width), windows,
                                                              Int32(count), constant, out, Int32(begin), Int32(end))
            } else {
                status[band] = mkk_adaptive_threshold_rows(gray, Int32(width), Int32(height), Int32(width), windows, Int32(count), constant,
                                                           out, Int32(begin), Int32(end))
            }
        }
    }
}

import CVBridge

/// OpenCV's own thread pool (`cv::setNumThreads`): set with MarkerKit's worker count so that OpenCV's
/// calls inside MarkerKit's stages, and OpenCV's detectors timed beside MarkerKit's, use the same cores.
public enum OpenCVThreads {
    /// OpenCV's thread count now.
    public static var count: Int { Int(cvb_get_num_threads()) }

    /// Sets OpenCV's thread count (at least 1).
    public static func set(_ threads: Int) { cvb_set_num_threads(Int32(clamping: max(threads, 1))) }
}

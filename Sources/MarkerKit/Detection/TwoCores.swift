import CVBridge

/// A frame's independent work on two cores (`cvb_parallel_for`: the calling thread and one helper thread
/// kept for the process), allocation-free: the body is called in place, never copied to the heap.
enum TwoCores {
    /// How many threads `forEach` may use: 2, or 1 on a single core or with MARKERKIT_DETECTOR_THREADS=1.
    static var threads: Int { Int(cvb_parallel_threads()) }

    /// Calls `body(index, worker)` for every index in 0..<count, on worker 0 (this thread) and worker 1 (the
    /// helper), and returns when all calls have returned. Indices are handed out in order, each to
    /// whichever worker is free; a body must write only its own index's results and its worker's scratch.
    static func forEach(_ count: Int, _ body: (_ index: Int, _ worker: Int) -> Void) {
        guard count > 1 else {
            if count == 1 { body(0, 0) }
            return
        }
        withoutActuallyEscaping(body) { body in
            var call = body
            withUnsafeMutablePointer(to: &call) { pointer in
                cvb_parallel_for(Int32(count), { context, index, worker in
                    context!.assumingMemoryBound(to: ((Int, Int) -> Void).self).pointee(Int(index), Int(worker))
                }, pointer)
            }
        }
    }
}

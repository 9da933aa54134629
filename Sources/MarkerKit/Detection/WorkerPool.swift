import MarkerKitKernels

/// A frame's independent work on every core it repays (`mkk_parallel_for`: the calling thread and helper
/// threads kept for the process, one fewer than the cores the process may run on), allocation-free. The
/// work is a value conforming to `WorkerPoolJob`, passed by pointer: a Swift closure handed to C would need
/// its context on the heap (measured: two allocations per call), which `track` must not make per frame.
public enum WorkerPool {
    /// How many workers a batch may use now: MARKERKIT_DETECTOR_THREADS or the cores, until `setThreads`.
    public static var threads: Int { Int(mkk_parallel_threads()) }

    /// The cores this process may run on (its affinity mask, as `taskset` sets it): the most workers there
    /// can be, so per-worker scratch is sized by it.
    public static var cores: Int { Int(mkk_parallel_cores()) }

    /// How many workers a batch that asks for at most `maxWorkers` (0: no limit) gets now.
    static func workers(atMost maxWorkers: Int) -> Int { maxWorkers > 0 ? min(maxWorkers, threads) : threads }

    /// Each of `jobs` frames detected at once gets this many workers (0 for one job: the whole pool), so
    /// that the frames together fill the pool and no more.
    static func share(jobs: Int) -> Int { jobs > 1 ? max(1, threads / jobs) : 0 }

    /// Sets how many workers batches use from now on (1 ... `cores`); returns the value set. OpenCV's own
    /// thread count is set to the same (`cv::setNumThreads`), so the two never ask for more cores than given.
    @discardableResult
    public static func setThreads(_ threads: Int) -> Int {
        let n = Int(mkk_parallel_set_threads(Int32(clamping: threads)))
        OpenCVThreads.set(n)
        return n
    }

    /// Calls `job.run(index, worker:)` for every index in 0..<count, on worker 0 (this thread) and helpers
    /// 1 ..< min(count, maxWorkers, threads), and returns when all calls have returned. Indices are handed
    /// out in order, each to whichever worker is free; a job must write only its own index's results and
    /// its worker's scratch (worker < `cores`).
    static func forEach<Job: WorkerPoolJob>(_ count: Int, maxWorkers: Int = 0, _ job: Job) {
        guard count > 1 else {
            if count == 1 { job.run(0, worker: 0) }
            return
        }
        withUnsafePointer(to: job) { job in
            withUnsafePointer(to: Batch(job: UnsafeRawPointer(job), type: Job.self)) { batch in
                mkk_parallel_for(Int32(count), Int32(clamping: maxWorkers), { context, index, worker in
                    let batch = context!.assumingMemoryBound(to: Batch.self).pointee
                    batch.type.run(at: batch.job, Int(index), worker: Int(worker))
                }, UnsafeMutableRawPointer(mutating: batch))
            }
        }
    }

    /// The job and its type, for the C callback (which cannot be generic).
    private struct Batch {
        let job: UnsafeRawPointer
        let type: any WorkerPoolJob.Type
    }
}

/// One batch of work for `WorkerPool.forEach`.
protocol WorkerPoolJob {
    func run(_ index: Int, worker: Int)
    /// Calls `run` on the job at `job` (implemented once below: the C callback reaches it through the type).
    static func run(at job: UnsafeRawPointer, _ index: Int, worker: Int)
}

extension WorkerPoolJob {
    static func run(at job: UnsafeRawPointer, _ index: Int, worker: Int) {
        job.assumingMemoryBound(to: Self.self).pointee.run(index, worker: worker)
    }
}

import MarkerKitKernels

/// A frame's independent work on two cores (`mkk_parallel_for`: the calling thread and one helper thread
/// kept for the process), allocation-free. The work is a value conforming to `TwoCoresJob`, passed by
/// pointer: a Swift closure handed to C would need its context on the heap (measured: two allocations
/// per call), which `track` must not make per frame.
enum TwoCores {
    /// How many threads `forEach` may use: 2, or 1 on a single core or with MARKERKIT_DETECTOR_THREADS=1.
    static var threads: Int { Int(mkk_parallel_threads()) }

    /// Calls `job.run(index, worker:)` for every index in 0..<count, on worker 0 (this thread) and worker
    /// 1 (the helper), and returns when all calls have returned. Indices are handed out in order, each to
    /// whichever worker is free; a job must write only its own index's results and its worker's scratch.
    static func forEach<Job: TwoCoresJob>(_ count: Int, _ job: Job) {
        guard count > 1 else {
            if count == 1 { job.run(0, worker: 0) }
            return
        }
        withUnsafePointer(to: job) { job in
            withUnsafePointer(to: Batch(job: UnsafeRawPointer(job), type: Job.self)) { batch in
                mkk_parallel_for(Int32(count), { context, index, worker in
                    let batch = context!.assumingMemoryBound(to: Batch.self).pointee
                    batch.type.run(at: batch.job, Int(index), worker: Int(worker))
                }, UnsafeMutableRawPointer(mutating: batch))
            }
        }
    }

    /// The job and its type, for the C callback (which cannot be generic).
    private struct Batch {
        let job: UnsafeRawPointer
        let type: any TwoCoresJob.Type
    }
}

/// One batch of work for `TwoCores.forEach`.
protocol TwoCoresJob {
    func run(_ index: Int, worker: Int)
    /// Calls `run` on the job at `job` (implemented once below: the C callback reaches it through the type).
    static func run(at job: UnsafeRawPointer, _ index: Int, worker: Int)
}

extension TwoCoresJob {
    static func run(at job: UnsafeRawPointer, _ index: Int, worker: Int) {
        job.assumingMemoryBound(to: Self.self).pointee.run(index, worker: worker)
    }
}

import Foundation

/// Work spread over threads, its results handed back in input order: what `detect`, `verify markers`
/// and `calibrate` run their frames, renders and views through (`--jobs`).
///
/// Each of `jobs` worker threads makes its own state with `makeState`, on that thread, and no other
/// thread ever touches it (a detector's `DetectorWorkspace`, a renderer's caches, a frame buffer read
/// into again and again). A worker takes the next input with `take`, one worker at a time and in input
/// order, so a sequential source (a video's decoder, a seeded sampler) is read exactly as one loop would
/// read it, and while it then works on that input with `work`, the next worker takes the next input.
/// The calling thread hands each output to `deliver` in input order; everything a user sees (lines,
/// files) happens there, so the output is the same whatever the number of jobs. At most `window` inputs
/// (default twice the jobs) are taken and not yet handed to `deliver`, which bounds memory: a video is
/// never decoded further ahead of its output than that.
///
/// A throw from `take`, `work` or `deliver` ends the run as it would end a loop: every output before
/// it is delivered, none after it, and the error is rethrown. Every thread has returned when `run`
/// returns or throws. With `jobs` 1 everything runs on the calling thread, as that loop.
public enum OrderedJobs {
    /// The default number of jobs: every core this process may run on.
    public static var defaultCount: Int { ProcessInfo.processInfo.activeProcessorCount }

    /// The numbers of jobs a user may ask for.
    public static let counts = 1...1024

    public static func run<State, Output>(jobs: Int, window: Int? = nil,
                                          makeState: @escaping () -> State,
                                          take: @escaping (inout State) throws -> Bool,
                                          work: @escaping (inout State) throws -> Output,
                                          deliver: (Output) throws -> Void) throws {
        precondition(jobs >= 1, "at least one job")
        if jobs == 1 {
            var state = makeState()
            while try take(&state) { try deliver(try work(&state)) }
            return
        }
        let pipeline = Pipeline(window: max(window ?? 2 * jobs, jobs), makeState: makeState, take: take, work: work)
        var threads: [pthread_t] = []
        defer {
            // Joined, not just signalled: every worker has left its decoder and run its thread-local
            // destructors before the caller goes on (or the process exits).
            pipeline.stop()
            for thread in threads { pthread_join(thread, nil) }
        }
        for _ in 0..<jobs {
            guard let thread = startThread(running: pipeline) else { break }
            threads.append(thread)
        }
        if threads.isEmpty {
            // No thread could be made: the plain loop.
            var state = makeState()
            while try take(&state) { try deliver(try work(&state)) }
            return
        }
        while let output = try pipeline.nextOutput() { try deliver(output) }
    }

    /// A thread running `worker.workerLoop()` with a stack as large as the main thread's (the detector
    /// keeps small scratch arrays on the stack); nil when the system cannot make one.
    private static func startThread(running worker: any WorkerLoop) -> pthread_t? {
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setstacksize(&attributes, 8 << 20)
        let context = Unmanaged.passRetained(worker as AnyObject).toOpaque()
        var thread = pthread_t()
        let status = pthread_create(&thread, &attributes, { context in
            // The reference is released when the loop returns, on this thread, before it ends.
            (Unmanaged<AnyObject>.fromOpaque(context!).takeRetainedValue() as! any WorkerLoop).workerLoop()
            return nil
        }, context)
        guard status == 0 else {
            Unmanaged<AnyObject>.fromOpaque(context).release()
            return nil
        }
        return thread
    }
}

private protocol WorkerLoop: AnyObject {
    func workerLoop()
}

/// The shared side of `OrderedJobs.run`: inputs numbered as they are taken, outputs kept by number until
/// the calling thread delivers them. `take` runs under `taking` (one worker at a time); the bookkeeping
/// under `lock`. Each worker's state stays on its thread.
private final class Pipeline<State, Output>: WorkerLoop, @unchecked Sendable {
    private let window: Int
    private let makeState: () -> State
    private let take: (inout State) throws -> Bool
    private let work: (inout State) throws -> Output

    private let taking = NSLock()
    private let lock = NSCondition()
    /// The number the next input taken gets.
    private var taken = 0
    /// Outputs handed to the calling thread so far.
    private var delivered = 0
    /// Outputs (or the error in their place) not yet delivered, by input number.
    private var finished: [Int: Result<Output, any Error>] = [:]
    /// No more inputs: the source ended or failed, or the run stops.
    private var ended = false

    init(window: Int, makeState: @escaping () -> State, take: @escaping (inout State) throws -> Bool,
         work: @escaping (inout State) throws -> Output) {
        self.window = window
        self.makeState = makeState
        self.take = take
        self.work = work
    }

    /// Takes and works on inputs until there are no more; the state lives and dies on this thread.
    func workerLoop() {
        var state = makeState()
        while true {
            taking.lock()
            lock.lock()
            while !ended && taken - delivered >= window { lock.wait() }
            let stop = ended
            lock.unlock()
            if stop {
                taking.unlock()
                return
            }
            let number = taken
            let got: Result<Bool, any Error>
            do { got = .success(try take(&state)) } catch { got = .failure(error) }
            lock.lock()
            switch got {
            case .success(true):
                taken += 1
            case .success(false):
                ended = true
            case .failure:
                // The error takes the input's place: delivered after every earlier output, ending the run.
                finished[number] = .failure(got.failure!)
                taken += 1
                ended = true
            }
            lock.broadcast()
            lock.unlock()
            taking.unlock()
            guard case .success(true) = got else { return }

            let output: Result<Output, any Error>
            do { output = .success(try work(&state)) } catch { output = .failure(error) }
            lock.lock()
            finished[number] = output
            lock.broadcast()
            lock.unlock()
        }
    }

    /// The next output in input order (waiting for it), nil after the last; throws the error that took
    /// an input's place.
    func nextOutput() throws -> Output? {
        lock.lock()
        defer { lock.unlock() }
        while finished[delivered] == nil && !(ended && delivered >= taken) { lock.wait() }
        guard let result = finished.removeValue(forKey: delivered) else { return nil }
        delivered += 1
        lock.broadcast()
        return try result.get()
    }

    /// Ends the run: no more inputs are taken, and waiting workers return.
    func stop() {
        lock.lock()
        ended = true
        lock.broadcast()
        lock.unlock()
    }
}

private extension Result {
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}

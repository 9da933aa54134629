import Foundation
import Testing
@testable import MarkerKit

/// `OrderedJobs`: outputs in input order, errors where a loop would meet them, states kept to their
/// threads, the window respected, and every thread returned.
@Suite struct OrderedJobsTests {
    struct Failure: Error, Equatable { let at: Int }

    /// A worker's state that remembers the one thread allowed to use it.
    final class Owned {
        let thread = pthread_self()
        var uses = 0
        func use() {
            #expect(pthread_equal(thread, pthread_self()) != 0, "a worker's state was used on another thread")
            uses += 1
        }
    }

    /// Runs 0..<count through `jobs` workers whose work takes uneven time (so outputs finish out of
    /// order); `failTake`/`failWork` throw at that input, `failDeliver` while delivering it.
    static func run(count: Int, jobs: Int, window: Int? = nil, failTake: Int? = nil, failWork: Int? = nil,
                    failDeliver: Int? = nil) -> (delivered: [Int], error: Failure?, maxInFlight: Int) {
        final class Counters: @unchecked Sendable {
            let lock = NSLock()
            var taken = 0, delivered = 0, maxInFlight = 0
        }
        let counters = Counters()
        var next = 0
        var delivered: [Int] = []
        do {
            try OrderedJobs.run(jobs: jobs, window: window, makeState: { (owner: Owned(), input: -1) }, take: { state in
                state.owner.use()
                guard next < count else { return false }
                if next == failTake { throw Failure(at: next) }
                state.input = next
                next += 1
                counters.lock.lock()
                counters.taken += 1
                counters.maxInFlight = max(counters.maxInFlight, counters.taken - counters.delivered)
                counters.lock.unlock()
                return true
            }, work: { state in
                state.owner.use()
                // Uneven work: later inputs often finish first.
                usleep(UInt32((state.input * 7919) % 5) * 300)
                if state.input == failWork { throw Failure(at: state.input) }
                return state.input * 10
            }, deliver: { output in
                counters.lock.lock()
                counters.delivered += 1
                counters.lock.unlock()
                if output / 10 == failDeliver { throw Failure(at: output / 10) }
                delivered.append(output / 10)
            })
            return (delivered, nil, counters.maxInFlight)
        } catch {
            return (delivered, error as? Failure, counters.maxInFlight)
        }
    }

    @Test(arguments: [1, 2, 3, 8])
    func outputsComeInInputOrder(jobs: Int) {
        let run = Self.run(count: 200, jobs: jobs)
        #expect(run.delivered == Array(0..<200))
        #expect(run.error == nil)
        // The window (2 x jobs) bounds what is taken and not yet handed out; one more is being delivered.
        #expect(run.maxInFlight <= (jobs == 1 ? 1 : 2 * jobs + 1), "at most the window taken and not delivered")
        #expect(Self.run(count: 0, jobs: jobs).delivered.isEmpty)
    }

    @Test func theWindowBoundsWhatIsInFlight() {
        let run = Self.run(count: 100, jobs: 4, window: 5)
        #expect(run.delivered == Array(0..<100))
        #expect(run.maxInFlight <= 5 + 1)
    }

    /// An error ends the run where a loop would end: everything before it delivered, nothing after.
    @Test(arguments: [1, 3])
    func errorsEndTheRunInPlace(jobs: Int) {
        let take = Self.run(count: 100, jobs: jobs, failTake: 37)
        #expect(take.delivered == Array(0..<37) && take.error == Failure(at: 37))
        let work = Self.run(count: 100, jobs: jobs, failWork: 52)
        #expect(work.delivered == Array(0..<52) && work.error == Failure(at: 52))
        let deliver = Self.run(count: 100, jobs: jobs, failDeliver: 20)
        #expect(deliver.delivered == Array(0..<20) && deliver.error == Failure(at: 20))
        let first = Self.run(count: 100, jobs: jobs, failWork: 0)
        #expect(first.delivered.isEmpty && first.error == Failure(at: 0))
    }

    /// One job runs everything on the calling thread, as a plain loop.
    @Test func oneJobIsTheCallingThread() throws {
        let caller = pthread_self()
        var threads: [Bool] = []
        var left = 3
        try OrderedJobs.run(jobs: 1, makeState: { pthread_equal(pthread_self(), caller) != 0 }, take: { onCaller in
            threads.append(onCaller && pthread_equal(pthread_self(), caller) != 0)
            left -= 1
            return left >= 0
        }, work: { _ in pthread_equal(pthread_self(), caller) != 0 }, deliver: { threads.append($0) })
        #expect(threads.count == 7 && threads.allSatisfy { $0 })
    }

    /// Every worker has returned, its state released, when `run` returns, also after an error.
    @Test(arguments: [false, true])
    func everyThreadHasReturnedWhenRunReturns(failing: Bool) {
        final class Tally: @unchecked Sendable {
            let lock = NSLock()
            var made = 0, gone = 0
        }
        final class Tracked {
            let tally: Tally
            init(_ tally: Tally) { self.tally = tally; tally.lock.lock(); tally.made += 1; tally.lock.unlock() }
            deinit { tally.lock.lock(); tally.gone += 1; tally.lock.unlock() }
        }
        let tally = Tally()
        var next = 0
        _ = try? OrderedJobs.run(jobs: 4, makeState: { Tracked(tally) }, take: { _ in
            next += 1
            return next <= 50
        }, work: { _ in
            usleep(200)
            return 0
        }, deliver: { _ in if failing { throw Failure(at: 0) } })
        tally.lock.lock()
        #expect(tally.made == 4 && tally.gone == 4)
        tally.lock.unlock()
    }

    /// Detection through the job with one thread and with three gives the same results for a video.
    @Test func detectionJobGivesTheSameResultsWithThreeJobs() throws {
        let video = Fixtures.url("aruco-original-photos/single/video.avi")
        var results: [[DetectionReport.FrameResult]] = []
        for jobs in [1, 3] {
            var job = DetectionJob(collectTimings: true)
            var frames: [DetectionReport.FrameResult] = []
            var summaries: [DetectionJob.Summary] = []
            try job.run([.video(video), .image(Fixtures.url("aruco-original-photos/single/image-test.png"))], jobs: jobs,
                        onFrame: { frames.append($0) }, onItem: { summaries.append(try $1.get()) })
            #expect(summaries.map(\.frames) == [145, 1] && summaries.map(\.detections) == [819, 6]) // 818 before a sure first read stood when its refined border read lighter
            #expect(job.timings?.frames == 146, "every worker's stage timings are summed")
            results.append(frames)
        }
        #expect(results[1].map { try! $0.jsonLine() } == results[0].map { try! $0.jsonLine() })
    }
}

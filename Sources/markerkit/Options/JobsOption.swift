import ArgumentParser
import MarkerKit

/// `--jobs N`: how many threads share the work of `detect`, `verify markers` and `calibrate`. Results
/// come in input order whatever N is, so the output is the same as with `--jobs 1`.
struct JobsOption: ParsableArguments {
    @Option(help: ArgumentHelp("Threads sharing the work, 1-1024 (default: every core). The output is the same for any number.",
                               valueName: "n"))
    var jobs: Int?

    /// The number of threads to use; a number outside 1-1024 is refused.
    func count() throws -> Int {
        guard let jobs else { return OrderedJobs.defaultCount }
        return try InputRange.check(jobs, in: OrderedJobs.counts, "--jobs")
    }
}

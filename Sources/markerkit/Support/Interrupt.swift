import Foundation
import MarkerKit
import Synchronization

/// Ctrl-C asks the running loop to stop; the loop finishes its current frame and writes what it has.
enum Interrupt {
    /// Written by the signal handler and read by the loops: a lock-free atomic, the only kind of shared
    /// state a signal handler may touch (a plain variable written there is a data race).
    private static let flag = Atomic<Bool>(false)

    static var requested: Bool {
        get { flag.load(ordering: .sequentiallyConsistent) }
        set { flag.store(newValue, ordering: .sequentiallyConsistent) }
    }

    /// From here on Ctrl-C (or SIGTERM) asks the command to stop at its next safe point instead of killing
    /// it mid-write; a second Ctrl-C stops at once (nothing half-written stays: files are renamed into place).
    static func install() {
        unblock()
        for signalNumber in [SIGINT, SIGTERM] {
            signal(signalNumber) { _ in
                if Interrupt.flag.exchange(true, ordering: .sequentiallyConsistent) { _exit(130) }
            }
        }
    }

    /// A parent may have started us with SIGINT and SIGTERM blocked (a test runner's worker thread does).
    static func unblock() {
        var signals = sigset_t()
        sigemptyset(&signals)
        sigaddset(&signals, SIGINT)
        sigaddset(&signals, SIGTERM)
        pthread_sigmask(SIG_UNBLOCK, &signals, nil)
    }

    /// A safe point of a long run that writes only at its end: after Ctrl-C, stops it with nothing written.
    static func checkpoint(_ what: String) throws {
        if requested { throw MarkerKitError.interrupted("\(what) stopped by Ctrl-C; nothing written, earlier files untouched") }
    }
}

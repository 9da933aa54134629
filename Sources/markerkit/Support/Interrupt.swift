import Foundation
import MarkerKit

/// Ctrl-C asks the running loop to stop; the loop finishes its current frame and writes what it has.
enum Interrupt {
    nonisolated(unsafe) static var requested = false

    /// From here on Ctrl-C (or SIGTERM) asks the command to stop at its next safe point instead of killing
    /// it mid-write; a second Ctrl-C stops at once (nothing half-written stays: files are renamed into place).
    static func install() {
        unblock()
        for signalNumber in [SIGINT, SIGTERM] {
            signal(signalNumber) { _ in
                if Interrupt.requested { _exit(130) }
                Interrupt.requested = true
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

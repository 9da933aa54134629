import Foundation
import MarkerKit

/// Ctrl-C asks the running loop to stop; the loop finishes its current frame and writes what it has.
enum Interrupt {
    nonisolated(unsafe) static var requested = false

    /// From here on Ctrl-C (or SIGTERM) asks the command to stop at its next safe point instead of killing
    /// it mid-write; a second Ctrl-C stops at once (nothing half-written stays: files are renamed into place).
    static func install() {
        // A parent may have started us with these signals blocked (a test runner's worker thread does).
        var unblock = sigset_t()
        sigemptyset(&unblock)
        sigaddset(&unblock, SIGINT)
        sigaddset(&unblock, SIGTERM)
        pthread_sigmask(SIG_UNBLOCK, &unblock, nil)
        for signalNumber in [SIGINT, SIGTERM] {
            signal(signalNumber) { _ in
                if Interrupt.requested { _exit(130) }
                Interrupt.requested = true
            }
        }
    }

    /// A safe point of a long run that writes only at its end: after Ctrl-C, stops it with nothing written.
    static func checkpoint(_ what: String) throws {
        if requested { throw MarkerKitError.interrupted("\(what) stopped by Ctrl-C; nothing written, earlier files untouched") }
    }
}

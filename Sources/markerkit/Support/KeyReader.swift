import Foundation

/// Single key presses from the terminal, without waiting for Enter; the terminal is restored after.
final class KeyReader {
    enum Key { case save, quit }
    private var original = termios()

    init?() throws {
        guard isatty(0) == 1 else { return nil }
        tcgetattr(0, &original)
        var raw = original
        raw.c_lflag &= ~tcflag_t(ICANON | ECHO)
        tcsetattr(0, TCSANOW, &raw)
        // A failure leaves reads blocking: the assistant then waits for a key instead of polling.
        _ = fcntl(0, F_SETFL, fcntl(0, F_GETFL) | O_NONBLOCK)
    }

    func poll() -> Key? {
        var byte: UInt8 = 0
        guard read(0, &byte, 1) == 1 else { return nil }
        switch byte {
        case UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\r"): return .save
        case UInt8(ascii: "q"), UInt8(ascii: "Q"): return .quit
        default: return nil
        }
    }

    func restore() {
        tcsetattr(0, TCSANOW, &original)
        _ = fcntl(0, F_SETFL, fcntl(0, F_GETFL) & ~O_NONBLOCK)
    }

    deinit { restore() }
}

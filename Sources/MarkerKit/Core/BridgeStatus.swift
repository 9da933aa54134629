import BridgeStatus

/// The C targets' status convention: a call returns a non-negative value on success and a negative code
/// on failure, the bridge keeping a one-line message for the calling thread. This turns one into the
/// MarkerKitError the user sees, in one place.
enum Bridge {
    /// `status` when it is not negative; else throws what `error` makes of the bridge's message (an
    /// internal failure unless the caller names a mistake of the user's). Nothing allocated on success.
    @inline(__always) @discardableResult
    static func check(_ status: Int32, _ error: (String) -> MarkerKitError = MarkerKitError.internalFailure) throws -> Int32 {
        guard status >= 0 else { throw error(lastError) }
        return status
    }

    /// The message of the calling thread's last failure.
    static var lastError: String { String(cString: bridge_last_error()) }
}

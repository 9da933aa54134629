import Foundation

/// One browser at a time uses the camera: the first page that connects controls it (keep view,
/// calibrate, store), the others watch; when the controlling page closes, the longest-connected watcher
/// takes over. With no page connected anyone may act (a script with curl, say). The device itself is
/// the station's alone, whoever controls it.
final class ControlLease: @unchecked Sendable {
    private let lock = NSLock()
    private var clients: [String] = []

    /// A new page's ID; the first one holds the lease.
    func join() -> String {
        let id = UUID().uuidString.lowercased()
        lock.withLock { clients.append(id) }
        return id
    }

    func leave(_ id: String) { lock.withLock { clients.removeAll { $0 == id } } }

    func controls(_ id: String) -> Bool { lock.withLock { clients.first == id } }

    /// Whether the client (its ID from the `X-MarkerKit-Client` header) may act now.
    func mayAct(_ id: String?) -> Bool {
        lock.withLock { clients.isEmpty || (id != nil && clients.first == id) }
    }

    var watchers: Int { lock.withLock { max(0, clients.count - 1) } }
}

import Foundation
import Hummingbird
import MarkerKit
import NIOCore

/// What a request to `markerkit serve` can carry, checked as the server checks it but without a socket
/// or a camera: the fuzzer's way in (`make fuzz`). Each returns whether the input was accepted; refusing
/// is right, crashing is a finding, and so is accepting something that breaks a promise.
public enum ServerInputs {
    /// A `/api/sheet` body, decoded and laid out as the route does (the PDF is not drawn: drawing is
    /// Cairo's, and what reaches it is what is checked here).
    public static func sheet(_ data: Data) -> Bool {
        guard let request = try? JSONDecoder().decode(SheetRequest.self, from: data), let plan = try? request.plan() else { return false }
        precondition(!plan.name.isEmpty && !plan.name.contains("/"), "a sheet's file name that climbs out: \(plan.name)")
        return true
    }

    /// A `/api/store` body: the name checked as the store checks it.
    public static func store(_ data: Data) -> Bool {
        guard let body = try? JSONDecoder().decode(ServerRoutes.StoreBody.self, from: data), (try? CalibrationStore.validate(name: body.name)) != nil else { return false }
        precondition(!body.name.contains("/") && !body.name.hasPrefix(".") && !body.name.contains("\0"), "accepted a name that is a path: \(body.name)")
        return true
    }

    /// A request head as the connection guard and the access guard read it: where it ends, its framing,
    /// its path and its `Host`.
    public static func head(_ data: Data) -> Bool {
        var buffer = ByteBuffer(bytes: data)
        let view = buffer.readableBytesView
        let end = FirstRequestGate.headEnd(view)
        if let end { precondition(end <= data.count, "head end past the bytes") }
        let text = String(decoding: data.prefix(end ?? data.count), as: UTF8.self)
        let framing = FirstRequestGate.framingProblem(text)
        var accepted = framing == nil
        let lines = text.split(whereSeparator: \.isNewline)
        if let requestLine = lines.first {
            let parts = requestLine.split(separator: " ")
            if parts.count >= 2 {
                let path = String(parts[1].split(separator: "?", maxSplits: 1).first ?? "")
                if AccessGuard<BasicRequestContext>.pathProblem(path) != nil { accepted = false }
            }
        }
        for line in lines.dropFirst() where line.lowercased().hasPrefix("host:") {
            let value = line.dropFirst(5).trimmingCharacters(in: .whitespaces)
            if let host = AccessGuard<BasicRequestContext>.hostName(value) {
                precondition(!host.isEmpty && !host.contains("/") && host.utf8.count <= 253, "a host name that is not one: \(host)")
            } else {
                accepted = false
            }
            _ = AccessGuard<BasicRequestContext>.sameOrigin("http://" + value, authority: value)
        }
        buffer.clear()
        return accepted
    }
}

import Foundation
import HummingbirdWebSocket
import NIOCore

/// The live picture over a WebSocket, paced by the browser: the server sends the station's status
/// (JSON text) and, when there is a newer picture than the last sent, the picture (JPEG, binary); the page
/// answers `next` once it has drawn it, and only then is the next one sent. A browser that draws slowly
/// gets fewer pictures, never a queue: pictures made meanwhile are skipped (the newest wins). Without a
/// newer picture for a second, the status goes alone (the page answers it too).
struct LiveSocket {
    struct Message: Encodable {
        let type: String
        var client: String?
        var controls: Bool
        var watchers: Int
        var frame: Bool
        var sequence: Int
        var status: StationStatus?
    }

    let station: any Station
    let lease: ControlLease

    func serve(inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter) async throws {
        let client = lease.join()
        defer { lease.leave(client) }
        try await send(Message(type: "hello", client: client, controls: lease.controls(client), watchers: lease.watchers, frame: false, sequence: 0), outbound)
        var replies = inbound.messages(maxSize: 1024).makeAsyncIterator()
        var sequence = 0
        let clock = ContinuousClock()
        while !Task.isCancelled && !station.isStopping {
            let deadline = clock.now + .seconds(1)
            var picture: (sequence: Int, jpeg: Data)?
            while picture == nil && clock.now < deadline && !station.isStopping && !Task.isCancelled {
                picture = try station.picture(after: sequence)
                if picture == nil { try await Task.sleep(for: .milliseconds(5)) }
            }
            if let picture { sequence = picture.sequence }
            try await send(Message(type: "status", controls: lease.controls(client), watchers: lease.watchers, frame: picture != nil,
                                   sequence: sequence, status: station.status), outbound)
            if let picture { try await outbound.write(.binary(ByteBuffer(bytes: picture.jpeg))) }
            guard let reply = try await replies.next() else { break }
            guard case .text("next") = reply else { break }
        }
    }

    private func send(_ message: Message, _ outbound: WebSocketOutboundWriter) async throws {
        let data = try JSONEncoder().encode(message)
        try await outbound.write(.text(String(decoding: data, as: UTF8.self)))
    }
}

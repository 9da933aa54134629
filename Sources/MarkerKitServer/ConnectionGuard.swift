import Foundation
import HummingbirdCore
import Logging
import NIOCore

/// What one client may hold of the server: connections per address and in all (kept below the
/// process's descriptor limit, so that idle connections cannot stop it answering), and how long the first
/// request's head may take to arrive (later requests on the connection are bounded by the idle timeout).
public struct ConnectionLimits: Sendable {
    public var perClient = 32
    public var total = 512
    public var headerTimeout: TimeAmount = .seconds(10)
    public var idleTimeout: TimeAmount = .seconds(30)
    /// The largest request head taken (request line and headers).
    public var maxHead = 16 * 1024

    public init() {}

    /// The total held below the descriptor limit: the camera, the views and the store need some.
    public static func descriptorBound() -> Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 512 }
        return max(16, Int(min(limit.rlim_cur, 1 << 20)) - 64)
    }
}

/// The connections open now, per client address and in all.
final class ConnectionLedger: @unchecked Sendable {
    let limits: ConnectionLimits
    private let lock = NSLock()
    private var counts: [String: Int] = [:]
    private var total = 0

    init(limits: ConnectionLimits) { self.limits = limits }

    /// Takes a place for `client`, or says why there is none.
    func admit(_ client: String) -> String? {
        lock.withLock {
            if total >= limits.total { return "the server holds \(total) connections, its limit" }
            if counts[client, default: 0] >= limits.perClient { return "this client holds \(limits.perClient) connections, the limit per client" }
            counts[client, default: 0] += 1
            total += 1
            return nil
        }
    }

    func release(_ client: String) {
        lock.withLock {
            total -= 1
            counts[client, default: 1] -= 1
            if counts[client] == 0 { counts[client] = nil }
        }
    }
}

/// An answer written straight to the socket (before any HTTP handler), then the connection is closed.
private func refuse(_ context: ChannelHandlerContext, status: String, message: String) {
    let body = (try? JSONEncoder().encode(["error": message])) ?? Data("{}".utf8)
    var buffer = context.channel.allocator.buffer(capacity: body.count + 160)
    buffer.writeString("HTTP/1.1 \(status)\r\nContent-Type: application/json\r\nContent-Length: \(body.count)\r\nConnection: close\r\n"
                       + "X-Content-Type-Options: nosniff\r\nCache-Control: no-store\r\n\r\n")
    buffer.writeBytes(body)
    // The channel (Sendable), not the context, is what the completion may hold: it runs on the channel's
    // event loop, where closing the channel closes this connection as the context would.
    let channel = context.channel
    context.writeAndFlush(NIOAny(buffer)).whenComplete { _ in channel.close(promise: nil) }
}

/// First in every connection's pipeline: a client over its share of connections gets 503 and is closed.
final class ConnectionLimitHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private let ledger: ConnectionLedger
    private var client: String?
    private var refused = false

    init(ledger: ConnectionLedger) { self.ledger = ledger }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { admit(context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        if client == nil && !refused { admit(context) }
        context.fireChannelActive()
    }

    private func admit(_ context: ChannelHandlerContext) {
        let address = context.channel.remoteAddress?.ipAddress ?? "unknown"
        if let problem = ledger.admit(address) {
            refused = true
            refuse(context, status: "503 Service Unavailable", message: problem + ": close some and try again")
        } else {
            client = address
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !refused else { return }
        context.fireChannelRead(data)
    }

    func channelInactive(context: ChannelHandlerContext) {
        if let client { ledger.release(client) }
        client = nil
        context.fireChannelInactive()
    }
}

/// Holds the bytes of a connection's first request until its head is complete, then passes them on
/// and leaves the pipeline. A head that does not arrive within the timeout gets 408, one over the size
/// limit 431, and one whose framing is ambiguous (two Content-Lengths, a length that is not a number,
/// a length beside Transfer-Encoding, a transfer coding other than chunked) 400: each then closed, where
/// the HTTP upgrade path (the WebSocket) would otherwise wait for bytes that never come.
final class FirstRequestGate: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private let limits: ConnectionLimits
    private var held: ByteBuffer?
    private var timeout: Scheduled<Void>?
    private var done = false

    init(limits: ConnectionLimits) { self.limits = limits }

    func handlerAdded(context: ChannelHandlerContext) {
        let loop = context.eventLoop.assumeIsolatedUnsafeUnchecked()
        timeout = loop.scheduleTask(in: limits.headerTimeout) { [self] in
            guard !done else { return }
            done = true
            refuse(context, status: "408 Request Timeout", message: "the request's head did not arrive in time")
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        timeout?.cancel()
        timeout = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !done else { return }
        var bytes = unwrapInboundIn(data)
        if held == nil { held = bytes } else { held!.writeBuffer(&bytes) }
        guard let buffer = held else { return }
        let view = buffer.readableBytesView
        guard let end = Self.headEnd(view) else {
            if view.count > limits.maxHead {
                done = true
                refuse(context, status: "431 Request Header Fields Too Large", message: "the request's head is over \(limits.maxHead) bytes")
            }
            return
        }
        if end > limits.maxHead {
            done = true
            refuse(context, status: "431 Request Header Fields Too Large", message: "the request's head is over \(limits.maxHead) bytes")
            return
        }
        if let problem = Self.framingProblem(String(decoding: view.prefix(end), as: UTF8.self)) {
            done = true
            refuse(context, status: "400 Bad Request", message: problem)
            return
        }
        done = true
        timeout?.cancel()
        held = nil
        context.fireChannelRead(NIOAny(buffer))
        context.fireChannelReadComplete()
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        if done { context.fireChannelReadComplete() }
    }

    /// The server is stopping: a connection that has not sent a whole head yet has nothing to finish
    /// (Hummingbird's own quiescing starts only once a request is read), so it closes now rather than
    /// holding the shutdown past its deadline.
    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is ChannelShouldQuiesceEvent && !done {
            done = true
            timeout?.cancel()
            context.close(promise: nil)
            return
        }
        context.fireUserInboundEventTriggered(event)
    }

    /// Where the head ends (after its blank line), or nil while it goes on.
    static func headEnd(_ bytes: ByteBufferView) -> Int? {
        var index = bytes.startIndex, seen = 0, offset = 0
        while index < bytes.endIndex {
            let byte = bytes[index]
            offset += 1
            if byte == 10 { // \n: two in a row, with or without \r between them, end the head
                seen += 1
                if seen == 2 { return offset }
            } else if byte != 13 {
                seen = 0
            }
            index = bytes.index(after: index)
        }
        return nil
    }

    /// Why a request head's framing is ambiguous, or nil.
    static func framingProblem(_ head: String) -> String? {
        var lengths: [String] = [], codings: [String] = []
        for line in head.split(whereSeparator: \.isNewline).dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = line[..<colon].trimmingCharacters(in: .whitespaces).lowercased()
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            if name == "content-length" { lengths.append(contentsOf: value.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }) }
            if name == "transfer-encoding" { codings.append(contentsOf: value.lowercased().split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }) }
        }
        if lengths.count > 1 { return "a request with \(lengths.count) Content-Length values is refused" }
        if let length = lengths.first, length.isEmpty || length.count > 18 || !length.allSatisfy({ $0.isASCII && $0.isNumber }) {
            return "Content-Length '\(length.prefix(40))' is not a length"
        }
        if !codings.isEmpty {
            if !lengths.isEmpty { return "a request with both Content-Length and Transfer-Encoding is refused" }
            if codings != ["chunked"] { return "Transfer-Encoding '\(codings.joined(separator: ", ").prefix(60))' is refused: only chunked is taken" }
        }
        return nil
    }
}

/// A server child channel with the guards above in front of it.
struct GuardedChildChannel<Inner: ServerChildChannel>: ServerChildChannel {
    typealias Value = Inner.Value
    let inner: Inner
    let ledger: ConnectionLedger

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        channel.eventLoop.makeCompletedFuture {
            try channel.pipeline.syncOperations.addHandlers([ConnectionLimitHandler(ledger: ledger), FirstRequestGate(limits: ledger.limits)])
        }.flatMap { inner.setup(channel: channel, logger: logger) }
    }

    func handle(value: Value, logger: Logger) async {
        await inner.handle(value: value, logger: logger)
    }
}

import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import Logging
import NIOCore
import MarkerKit
import ServiceLifecycle

/// Where and how `markerkit serve` listens.
public struct ServerSettings: Sendable {
    public var host = "127.0.0.1"
    public var port = 8080
    /// The run's secret. The API and the live socket need it from every request, on loopback too; the
    /// page is served with it inside (as Jupyter does), so only the page can use them. Beyond loopback the
    /// page needs it as well (`?token=` in the address printed).
    public var token = ServerSettings.newToken()
    /// Host names the server answers to besides its own addresses (a reverse proxy's name).
    public var allowedHosts: [String] = []
    /// The largest request body taken (the page sends small JSON).
    public var maxBody = 16 * 1024
    public var limits = ConnectionLimits()

    public init() {}

    /// 128 random bits as 32 hex digits.
    public static func newToken() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<4).map { _ in String(format: "%08x", UInt32.random(in: .min ... .max, using: &generator)) }.joined()
    }
}

/// The HTTP and WebSocket server of `markerkit serve` (Hummingbird) over a camera station and a
/// calibration desk. Ctrl-C or SIGTERM stops it: open connections get half a second, the camera is
/// released, and nothing is left half-written (every file is written whole or not at all).
public struct MarkerKitServer: Sendable {
    public let station: any Station
    public let desk: CalibrationDesk
    public let settings: ServerSettings
    /// The address listened on, resolved: whether the page needs the secret depends on it.
    public let address: ListenAddress
    private let page: WebPage

    public init(station: any Station, desk: CalibrationDesk, settings: ServerSettings) throws {
        self.station = station
        self.desk = desk
        self.settings = settings
        address = try ListenAddress(host: settings.host)
        page = try WebPage()
    }

    /// Whether every request, the page's too, needs the secret (the server listens beyond loopback).
    public var pageNeedsToken: Bool { !address.isLoopback }

    /// Serves until Ctrl-C or SIGTERM; `onReady` gets the port listened on (the one asked for, or the
    /// one given for port 0).
    public func run(onReady: @escaping @Sendable (Int) -> Void) async throws {
        var logger = Logger(label: "markerkit serve")
        // Critical only: Hummingbird logs connections still open at Ctrl-C as errors, which would add lines
        // to a clean stop; what the user must know comes back as thrown errors.
        logger.logLevel = .critical
        let routes = ServerRoutes(page: page, station: station, desk: desk, lease: ControlLease(), settings: settings,
                                  access: AccessGuard(token: settings.token, pageNeedsToken: pageNeedsToken,
                                                      allowedHosts: address.allowedHostNames(extra: settings.allowedHosts),
                                                      maxBody: settings.maxBody, openPaths: page.openPaths))
        let router = routes.router()
        let port = settings.port
        var limits = settings.limits
        limits.total = min(limits.total, ConnectionLimits.descriptorBound())
        let ledger = ConnectionLedger(limits: limits)
        let channel = HTTP1WebSocketUpgradeChannel.Configuration(
            http1: .init(idleTimeout: limits.idleTimeout,
                         httpDecoderConfiguration: .init(maxHeaderFieldSize: limits.maxHead, maxHeaderListSize: limits.maxHead, maxHeaderFieldCount: 100)),
            ws: .init(maxFrameSize: 1 << 14, autoPing: .enabled(timePeriod: .seconds(15))))
        let webSocketResponder = router.buildResponder()
        let server = HTTPServerBuilder { responder in
            GuardedChildChannel(inner: HTTP1WebSocketUpgradeChannel(responder: responder, webSocketResponder: webSocketResponder, configuration: channel),
                                ledger: ledger)
        }
        let app = Application(router: router, server: server,
                              configuration: ApplicationConfiguration(address: .hostname(address.address, port: port), serverName: "markerkit"),
                              onServerRunning: { channel in onReady(channel.localAddress?.port ?? port) }, logger: logger)
        var configuration = ServiceGroupConfiguration(services: [app, StationService(station: station)], gracefulShutdownSignals: [.sigint, .sigterm],
                                                      logger: logger)
        configuration.maximumGracefulShutdownDuration = .milliseconds(500)
        configuration.maximumCancellationDuration = .milliseconds(1500)
        do {
            try await ServiceGroup(configuration: configuration).run()
        } catch {
            station.stop()
            let text = "\(error)"
            if text.contains("Address already in use") {
                throw MarkerKitError.advised(.cannotWrite("cannot listen on \(settings.host):\(port): the port is in use (another server?)"), .anotherPort)
            }
            if text.contains("bind") || text.contains("Cannot assign requested address") {
                throw MarkerKitError.cannotWrite("cannot listen on \(settings.host):\(port): \(text)")
            }
            throw error
        }
        station.stop()
    }
}

/// The camera's reading thread as a service of the server: started with it, and stopped first when it
/// stops (a service group stops its services last to first), so that live sockets end at once.
struct StationService: Service {
    let station: any Station

    func run() async throws {
        station.start()
        try? await gracefulShutdown()
        // Asks the reading thread to stop and waits only briefly: the service group traps when a service
        // outlasts its cancellation deadline, and a thread inside a camera read or a frame's detection may
        // take longer on a busy machine. The server's run waits for it after the group has ended.
        _ = station.stop(timeout: 0.05)
    }
}

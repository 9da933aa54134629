import Foundation
import Hummingbird
import HummingbirdWebSocket
import Logging
import MarkerKit
import ServiceLifecycle

/// Where and how `markerkit serve` listens.
public struct ServerSettings: Sendable {
    public var host = "127.0.0.1"
    public var port = 8080
    /// Required from every request when set; `markerkit serve` sets one for any host beyond loopback.
    public var token: String?
    /// The largest request body taken (the page sends small JSON).
    public var maxBody = 16 * 1024

    public init() {}

    public static func isLoopback(_ host: String) -> Bool {
        host == "localhost" || host == "::1" || host.hasPrefix("127.")
    }

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
    public let station: CameraStation
    public let desk: CalibrationDesk
    public let settings: ServerSettings
    private let page: WebPage

    public init(station: CameraStation, desk: CalibrationDesk, settings: ServerSettings) throws {
        self.station = station
        self.desk = desk
        self.settings = settings
        page = try WebPage()
    }

    /// Serves until Ctrl-C or SIGTERM; `onReady` gets the port listened on (the one asked for, or the
    /// one given for port 0).
    public func run(onReady: @escaping @Sendable (Int) -> Void) async throws {
        var logger = Logger(label: "markerkit serve")
        logger.logLevel = .error
        let routes = ServerRoutes(page: page, station: station, desk: desk, lease: ControlLease(), settings: settings)
        let router = routes.router()
        let port = settings.port
        let app = Application(router: router, server: .http1WebSocketUpgrade(webSocketRouter: router),
                              configuration: ApplicationConfiguration(address: .hostname(settings.host, port: port), serverName: "markerkit"),
                              onServerRunning: { channel in onReady(channel.localAddress?.port ?? port) }, logger: logger)
        var configuration = ServiceGroupConfiguration(services: [app, StationService(station: station)], gracefulShutdownSignals: [.sigint, .sigterm],
                                                      logger: logger)
        configuration.maximumGracefulShutdownDuration = .milliseconds(500)
        configuration.maximumCancellationDuration = .milliseconds(300)
        do {
            try await ServiceGroup(configuration: configuration).run()
        } catch {
            station.stop()
            let text = "\(error)"
            if text.contains("Address already in use") {
                throw MarkerKitError.cannotWrite("cannot listen on \(settings.host):\(port): the port is in use (another server? give --port)")
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
    let station: CameraStation

    func run() async throws {
        station.start()
        try? await gracefulShutdown()
        station.stop()
    }
}

import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdWebSocket
import MarkerKit
import NIOCore

/// The server's routes, a fixed list: the page's three files, the live socket, and the API the page
/// calls. Acting routes (keep, calibrate, store) are for the page that controls the camera.
struct ServerRoutes {
    let page: WebPage
    let station: any Station
    let desk: CalibrationDesk
    let lease: ControlLease
    let settings: ServerSettings
    let access: AccessGuard<BasicWebSocketRequestContext>

    static var clientHeader: HTTPField.Name { HTTPField.Name("X-MarkerKit-Client")! }

    func router() -> Router<BasicWebSocketRequestContext> {
        let router = Router(context: BasicWebSocketRequestContext.self)
        router.add(middleware: access)
        router.add(middleware: Audience(station: station))
        for (path, file) in page.serving(token: settings.token) {
            router.get(RouterPath(path)) { _, _ in Response.bytes(file.data, type: file.type) }
        }
        let live = LiveSocket(station: station, lease: lease)
        router.ws("/live") { _, _ in .upgrade([:]) } onUpgrade: { inbound, outbound, _ in
            try await live.serve(inbound: inbound, outbound: outbound)
        }
        router.get("/api/status") { _, _ in Response.json(station.status) }
        router.get("/api/frame.jpg") { _, _ in
            guard let picture = try station.picture(after: 0) else { throw ServerRefusal.notFound("no picture from the camera yet") }
            return Response.bytes(picture.jpeg, type: "image/jpeg")
        }
        router.get("/api/views/:index/thumbnail.jpg") { _, context in
            let index = try context.parameters.require("index", as: Int.self)
            guard let jpeg = station.thumbnail(index) else { throw ServerRefusal.notFound("no view \(index)") }
            return Response.bytes(jpeg, type: "image/jpeg")
        }
        router.post("/api/keep") { request, _ in
            try mayAct(request)
            station.requestKeep()
            return Response.json(["asked": station.status.rig == nil ? "the next frame is kept when the board is found in it and sharp"
                                                                      : "the next set is kept when every camera finds the board in it sharp"])
        }
        router.post("/api/calibrate") { request, _ in
            try mayAct(request)
            let body = try await decode(CalibrateBody.self, request)
            let kept = station.kept
            return Response.json(try await Blocking.run { try desk.calibrate(kept, model: body.model) })
        }
        router.post("/api/store") { request, _ in
            try mayAct(request)
            let body = try await decode(StoreBody.self, request)
            let url = try await Blocking.run { try desk.store(name: body.name, force: body.force ?? false) }
            return Response.json(StoreAnswer(stored: url.lastPathComponent, lines: try desk.summaryLines()))
        }
        router.get("/api/camera") { _, _ in Response.json(CameraSettings(camera: station.camera)) }
        router.post("/api/camera") { request, _ in
            try mayAct(request)
            let body = try await decode(ControlBody.self, request)
            try CameraSettings.set(body.name, to: body.value, on: station.camera)
            return Response.json(CameraSettings(camera: station.camera))
        }
        router.get("/api/result/report.pdf") { _, _ in
            Response.bytes(try await Blocking.run { try desk.report() }, type: "application/pdf", download: "calibration-report.pdf")
        }
        router.get("/api/result/:format") { _, context in
            let file = try desk.export(format: try context.parameters.require("format"))
            return Response.bytes(file.data, type: "application/octet-stream", download: file.name)
        }
        router.get("/api/calibrations") { _, _ in Response.json(desk.stored()) }
        router.get("/api/calibrations/:name/:format") { _, context in
            // Path parameters arrive percent-encoded: a name stored as "caméra" is asked for as "cam%C3%A9ra".
            let name = try context.parameters.require("name")
            guard let decoded = name.removingPercentEncoding else { throw ServerRefusal.badRequest("the name in the path is not percent-encoded UTF-8") }
            let file = try desk.export(stored: decoded, format: try context.parameters.require("format"))
            return Response.bytes(file.data, type: "application/octet-stream", download: file.name)
        }
        router.post("/api/sheet") { request, _ in
            let body = try await decode(SheetRequest.self, request)
            let file = try await Blocking.run { try body.make() }
            return Response.bytes(file.data, type: file.type, download: file.name)
        }
        return router
    }

    struct CalibrateBody: Decodable { var model: String? }
    /// A control and its value as typed (a number, on/off, a menu entry's name).
    struct ControlBody: Decodable {
        var name: String
        var value: String
    }
    struct StoreBody: Decodable { var name: String; var force: Bool? }
    struct StoreAnswer: Encodable { let stored: String; let lines: [String] }

    private func mayAct(_ request: Request) throws {
        guard lease.mayAct(request.headers[Self.clientHeader]) else {
            throw ServerRefusal.busy("another browser is using the camera; this page watches")
        }
    }

    /// The JSON body, read up to the limit.
    private func decode<T: Decodable>(_ type: T.Type, _ request: Request) async throws -> T {
        let buffer = try await request.body.collect(upTo: settings.maxBody)
        do {
            return try JSONDecoder().decode(T.self, from: Data(buffer.readableBytesView))
        } catch {
            throw ServerRefusal.badRequest("the request body is not the JSON this call takes")
        }
    }
}

/// Tells the station that someone is watching, on every request the access guard let in (a video file
/// plays from the first page or API call, not from the server's start).
struct Audience<Context: RequestContext>: RouterMiddleware {
    let station: any Station

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        station.audienceArrived()
        return try await next(request, context)
    }
}

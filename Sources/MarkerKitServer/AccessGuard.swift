import Foundation
import HTTPTypes
import Hummingbird

/// Every request passes here first. A path that tries to climb out (`..`, plain or percent-encoded once
/// or more, a backslash or a NUL) is refused with 400 before any route sees it; routes are a fixed list,
/// so no part of a path ever reaches the file system anyway. With a token (the server listens beyond
/// loopback), a request without it gets 401 and one with a wrong token 403; the token comes as
/// `?token=`, an `X-MarkerKit-Token` header or `Authorization: Bearer`. A body declared larger than the
/// limit gets 413 unread (a body without a length is cut at the limit by the route that reads it).
struct AccessGuard<Context: RequestContext>: RouterMiddleware {
    let token: String?
    let maxBody: Int

    static var tokenHeader: HTTPField.Name { HTTPField.Name("X-MarkerKit-Token")! }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        if let problem = Self.pathProblem(request.uri.path) { return ServerRefusal.response(for: ServerRefusal.badRequest(problem)) }
        if let token {
            let bearer = request.headers[.authorization].flatMap { $0.hasPrefix("Bearer ") ? String($0.dropFirst(7)) : nil }
            guard let given = request.uri.queryParameters["token"].map(String.init) ?? request.headers[Self.tokenHeader] ?? bearer else {
                return ServerRefusal.response(for: ServerRefusal.unauthorized("this server needs its token: open the address markerkit serve printed (?token=...)"))
            }
            guard Self.same(given, token) else { return ServerRefusal.response(for: ServerRefusal.forbidden("wrong token")) }
        }
        if let length = request.headers[.contentLength].flatMap({ Int($0) }), length > maxBody {
            return ServerRefusal.response(for: ServerRefusal.tooLarge("request body of \(length) bytes: the limit is \(maxBody)"))
        }
        do {
            return try await next(request, context)
        } catch {
            return ServerRefusal.response(for: error)
        }
    }

    /// Why a path is refused, or nil: it is decoded up to three times (double encoding included) and
    /// must then hold no `..` segment, backslash, NUL or encoded slash.
    static func pathProblem(_ path: String) -> String? {
        var decoded = path
        for _ in 0..<3 {
            if decoded.lowercased().contains("%2f") || decoded.lowercased().contains("%5c") { return "encoded slashes are refused in paths" }
            guard let next = decoded.removingPercentEncoding, next != decoded else { break }
            decoded = next
        }
        if decoded.contains("\\") || decoded.contains("\0") { return "backslashes and NUL are refused in paths" }
        if decoded.split(separator: "/", omittingEmptySubsequences: false).contains(where: { $0 == ".." || $0 == "." }) {
            return "'..' is refused in paths"
        }
        return nil
    }

    /// Compares in time that does not depend on where the strings differ.
    static func same(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        var difference = x.count ^ y.count
        for i in 0..<min(x.count, y.count) { difference |= Int(x[i] ^ y[i]) }
        return difference == 0
    }
}

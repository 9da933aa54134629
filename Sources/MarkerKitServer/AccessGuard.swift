import Foundation
import HTTPTypes
import Hummingbird

/// Every request passes here first, and only the page's own requests get through:
/// - a path that tries to climb out (`..`, plain or percent-encoded once or more, a backslash or a NUL): 400;
/// - a `Host` that is not one of the server's own names (DNS rebinding: a foreign name that resolves to
///   this machine): 403;
/// - an `Origin` other than the server's own (another web page, also on another port of this machine),
///   a frame, or a cross-site request that is not the user opening the page: 403;
/// - the API and the live socket without the run's secret: 401, with a wrong one: 403. The page carries
///   the secret in it (on loopback the page is open; beyond it, the page needs the secret too); a request
///   that changes anything must carry it in a header, which a cross-site form cannot send, and must be
///   JSON (`text/plain`, form and multipart bodies, which need no CORS preflight, get 415);
/// - a body declared larger than the limit: 413 unread.
/// Every answer, refusals included, forbids framing and sniffing and sends no referrer.
struct AccessGuard<Context: RequestContext>: RouterMiddleware {
    let token: String
    /// Beyond loopback the page itself needs the secret (`?token=` in the address printed).
    let pageNeedsToken: Bool
    /// Lower-case host names and addresses the server answers to.
    let allowedHosts: Set<String>
    let maxBody: Int
    /// Paths served to anyone who passes the host and origin checks (the page's script and style, which
    /// hold no secret).
    let openPaths: Set<String>

    static var tokenHeader: HTTPField.Name { HTTPField.Name("X-MarkerKit-Token")! }

    /// The headers every answer carries.
    static var securityHeaders: [(HTTPField.Name, String)] { [
        (.contentSecurityPolicy, "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' blob:; connect-src 'self'; "
            + "frame-ancestors 'none'; base-uri 'none'; form-action 'none'"),
        (HTTPField.Name("X-Frame-Options")!, "DENY"),
        (HTTPField.Name("X-Content-Type-Options")!, "nosniff"),
        (HTTPField.Name("Referrer-Policy")!, "no-referrer"),
        (HTTPField.Name("Cross-Origin-Resource-Policy")!, "same-origin"),
        (HTTPField.Name("Cross-Origin-Opener-Policy")!, "same-origin"),
    ] }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response: Response
        if let refusal = refusal(for: request) {
            response = ServerRefusal.response(for: refusal)
        } else {
            do {
                response = try await next(request, context)
            } catch {
                response = ServerRefusal.response(for: error)
            }
        }
        for (name, value) in Self.securityHeaders { response.headers[name] = value }
        return response
    }

    /// Why the request is refused, or nil.
    func refusal(for request: Request) -> ServerRefusal? {
        let path = request.uri.path
        if let problem = Self.pathProblem(path) { return .badRequest(problem) }
        guard let authority = request.head.authority, let host = Self.hostName(authority) else {
            return .forbidden("a request without a Host is refused")
        }
        guard allowedHosts.contains(host) else {
            return .forbidden("this server answers only to its own addresses, not to '\(host.prefix(100))' (a reverse proxy's name can be allowed when the server is started)")
        }
        if let origin = request.headers[.origin], !Self.sameOrigin(origin, authority: authority) {
            return .forbidden("requests from another web page ('\(origin.prefix(100))') are refused")
        }
        if let problem = Self.fetchProblem(request) { return .forbidden(problem) }
        let isPage = !(path == "/live" || path.hasPrefix("/api/"))
        if isPage && (openPaths.contains(path) || !pageNeedsToken) {
            // The page: checked for host and origin, open without the secret on loopback.
        } else {
            let inHeader = request.headers[Self.tokenHeader]
                ?? request.headers[.authorization].flatMap { $0.hasPrefix("Bearer ") ? String($0.dropFirst(7)) : nil }
            // A request that changes something carries the secret in a header; reading may carry it in
            // the address (links, images and the WebSocket, which cannot set headers).
            let given = request.method == .get || request.method == .head ? inHeader ?? request.uri.queryParameters["token"].map(String.init) : inHeader
            guard let given else {
                return .unauthorized(request.method == .get || request.method == .head
                    ? "this server needs its secret: open the page at the address markerkit serve printed"
                    : "this request needs the page's secret in the X-MarkerKit-Token header")
            }
            guard Self.same(given, token) else { return .forbidden("wrong token") }
        }
        if request.method == .post {
            let type = request.headers[.contentType]?.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            guard type == "application/json" else {
                return .unsupportedMediaType("this call takes JSON (Content-Type: application/json), not \(type.map { "'\($0.prefix(60))'" } ?? "a body without a type")")
            }
        }
        if let declared = request.headers[.contentLength] {
            guard let length = Int(declared), length >= 0 else { return .badRequest("Content-Length '\(declared.prefix(40))' is not a length") }
            if length > maxBody { return .tooLarge("request body of \(length) bytes: the limit is \(maxBody)") }
        }
        return nil
    }

    /// What the browser says about where a request comes from (`Sec-Fetch-*`): anything in a frame, and
    /// anything cross-site or from another port of this machine (same-site) but the user opening the page
    /// from a link, is refused. Clients that send none (curl, scripts) are judged by the secret alone.
    static func fetchProblem(_ request: Request) -> String? {
        let site = request.headers[HTTPField.Name("Sec-Fetch-Site")!]?.lowercased()
        let mode = request.headers[HTTPField.Name("Sec-Fetch-Mode")!]?.lowercased()
        let dest = request.headers[HTTPField.Name("Sec-Fetch-Dest")!]?.lowercased()
        if let dest, ["iframe", "frame", "embed", "object", "fencedframe"].contains(dest) { return "this page may not be shown in a frame" }
        guard let site, site != "same-origin", site != "none" else { return nil }
        if mode == "navigate" && dest == "document" && request.method == .get && request.uri.path == "/" { return nil }
        return "requests from another site are refused"
    }

    /// The lower-case host of a `Host` value (`name:port`, `[v6]:port`), without a trailing dot; nil when malformed.
    static func hostName(_ authority: String) -> String? {
        var host = Substring(authority.lowercased())
        if host.hasPrefix("[") {
            guard let close = host.firstIndex(of: "]") else { return nil }
            let rest = host[host.index(after: close)...]
            guard rest.isEmpty || (rest.hasPrefix(":") && rest.dropFirst().allSatisfy(\.isNumber)) else { return nil }
            host = host[host.index(after: host.startIndex)..<close]
        } else if let colon = host.lastIndex(of: ":") {
            guard host[host.index(after: colon)...].allSatisfy(\.isNumber), !host[..<colon].contains(":") else { return nil }
            host = host[..<colon]
        }
        if host.hasSuffix(".") { host = host.dropLast() }
        // A name (letters, digits, - _ .) or an IPv6 address (hex digits, : and .); anything else is no host.
        guard !host.isEmpty, host.utf8.count <= 253,
              host.unicodeScalars.allSatisfy({ $0.isASCII && (CharacterSet.alphanumerics.contains($0) || "-_.:".unicodeScalars.contains($0)) }) else { return nil }
        return String(host)
    }

    /// Whether `origin` (`scheme://host[:port]`) is this server as the browser reached it (`authority`, the Host).
    static func sameOrigin(_ origin: String, authority: String) -> Bool {
        let lower = origin.lowercased()
        for scheme in ["http://", "https://"] where lower.hasPrefix(scheme) {
            return lower.dropFirst(scheme.count) == Substring(authority.lowercased())
        }
        return false
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

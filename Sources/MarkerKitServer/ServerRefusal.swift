import Foundation
import HTTPTypes
import Hummingbird
import MarkerKit
import NIOCore

/// Why the server refuses a request, with its HTTP status; the library's own errors map onto statuses
/// as the CLI maps them onto exit codes. The body is one line of JSON: `{"error": "..."}`.
enum ServerRefusal: Error {
    case badRequest(String)
    case unauthorized(String)
    case forbidden(String)
    case notFound(String)
    case busy(String)
    case tooLarge(String)
    case unsupportedMediaType(String)

    var status: HTTPResponse.Status {
        switch self {
        case .badRequest: return .badRequest
        case .unauthorized: return .unauthorized
        case .forbidden: return .forbidden
        case .notFound: return .notFound
        case .busy: return .conflict
        case .tooLarge: return .contentTooLarge
        case .unsupportedMediaType: return .unsupportedMediaType
        }
    }

    var message: String {
        switch self {
        case .badRequest(let m), .unauthorized(let m), .forbidden(let m), .notFound(let m), .busy(let m), .tooLarge(let m),
             .unsupportedMediaType(let m): return m
        }
    }

    /// The status and line for any error a handler throws.
    static func answer(for error: any Error) -> (HTTPResponse.Status, String) {
        switch error {
        case let refusal as ServerRefusal: return (refusal.status, refusal.message)
        case let error as MarkerKitError:
            if case .advised(let failure, _) = error { return (answer(for: failure).0, error.description) }
            switch error {
            case .invalidArgument, .badInput: return (.unprocessableContent, error.description)
            case .missingInput: return (.notFound, error.description)
            case .outputExists: return (.conflict, error.description + " (tick replace to overwrite)")
            case .interrupted, .cameraLost: return (.serviceUnavailable, error.description)
            case .cannotWrite, .internalFailure, .advised: return (.internalServerError, error.description)
            }
        case let error as NIOTooManyBytesError:
            return (.contentTooLarge, "request body over the limit of \(error.maxBytes.map(String.init) ?? "?") bytes")
        case let error as HTTPError:
            return (error.status, error.body ?? error.status.reasonPhrase)
        default:
            return (.internalServerError, "\(error)")
        }
    }

    /// A JSON error response. It names no folder of the machine: the working folder and the home folder
    /// are taken out of the message (a file in the working folder is named as the user would name it).
    static func response(for error: any Error) -> Response {
        let (status, message) = answer(for: error)
        return Response.json(["error": withoutFolders(message)], status: status)
    }

    static func withoutFolders(_ message: String) -> String {
        var text = message
        let here = FileManager.default.currentDirectoryPath
        if here.count > 1 { text = text.replacingOccurrences(of: here + "/", with: "").replacingOccurrences(of: here, with: ".") }
        if let home = ProcessInfo.processInfo.environment["HOME"], home.count > 1 { text = text.replacingOccurrences(of: home, with: "~") }
        return text
    }
}

extension Response {
    /// `value` as a JSON body.
    static func json(_ value: some Encodable, status: HTTPResponse.Status = .ok) -> Response {
        let data = (try? JSONEncoder().encode(value)) ?? Data("{}".utf8)
        return Response(status: status, headers: [.contentType: "application/json", .cacheControl: "no-store"],
                        body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }

    /// `attachment` with the name as RFC 6266 gives it: an ASCII fallback (other characters as `_`) and the
    /// UTF-8 name percent-encoded, so that a calibration named "caméra" downloads as caméra.yaml.
    static func contentDisposition(_ name: String) -> String {
        let fallback = String(name.unicodeScalars.map { $0.isASCII && $0.value >= 0x20 && $0 != "\"" && $0 != "\\" ? Character($0) : "_" })
        let allowed = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
        let encoded = name.addingPercentEncoding(withAllowedCharacters: allowed) ?? fallback
        return "attachment; filename=\"\(fallback)\"; filename*=UTF-8''\(encoded)"
    }

    /// Bytes with a content type; with a file name, as a download.
    static func bytes(_ data: Data, type: String, download name: String? = nil) -> Response {
        var headers: HTTPFields = [.contentType: type, .cacheControl: "no-store"]
        if let name { headers[.contentDisposition] = contentDisposition(name) }
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }
}

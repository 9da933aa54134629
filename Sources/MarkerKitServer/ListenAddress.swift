import Foundation
import MarkerKit

/// Where `markerkit serve` listens, decided on the resolved address, never on how the host is spelled:
/// `--host 127.lab.example` that resolves to 10.0.0.7 is not loopback. The server binds the resolved
/// address itself (not the name again), so the address judged is the address bound.
public struct ListenAddress: Sendable, Equatable {
    /// What the user gave (`127.0.0.1`, `localhost`, `0.0.0.0`, a name).
    public let host: String
    /// The numeric address bound.
    public let address: String
    /// Whether every address the host resolves to is a loopback address (127.0.0.0/8, ::1).
    public let isLoopback: Bool
    /// Whether the address is 0.0.0.0 or :: (every interface).
    public let isWildcard: Bool

    /// Resolves `host`; a name that does not resolve, or resolves to nothing, is refused.
    public init(host: String) throws {
        let trimmed = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        guard !trimmed.isEmpty, trimmed.utf8.count <= 253, !trimmed.contains(where: { $0.isWhitespace || $0 == "/" }) else {
            throw MarkerKitError.invalidArgument("cannot listen on '\(host)': not an address or host name")
        }
        let addresses = Self.resolve(trimmed)
        guard let first = addresses.first else {
            throw MarkerKitError.invalidArgument("cannot listen on '\(host)': the name does not resolve to an address of this machine's network")
        }
        self.host = trimmed
        address = first
        isLoopback = addresses.allSatisfy(Self.isLoopbackAddress)
        isWildcard = first == "0.0.0.0" || first == "::"
    }

    /// The numeric addresses `host` resolves to (IPv4 first, as getaddrinfo orders them), without duplicates.
    static func resolve(_ host: String) -> [String] {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_ADDRCONFIG
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, nil, &hints, &list) == 0, let list else {
            // AI_ADDRCONFIG hides ::1 on a machine without IPv6 addresses; try once more without it.
            hints.ai_flags = 0
            var retry: UnsafeMutablePointer<addrinfo>?
            guard getaddrinfo(host, nil, &hints, &retry) == 0, let retry else { return [] }
            defer { freeaddrinfo(retry) }
            return numeric(retry)
        }
        defer { freeaddrinfo(list) }
        return numeric(list)
    }

    private static func numeric(_ list: UnsafeMutablePointer<addrinfo>) -> [String] {
        var result: [String] = []
        var entry: UnsafeMutablePointer<addrinfo>? = list
        while let current = entry {
            var buffer = [CChar](repeating: 0, count: Int(NI_MAXHOST))
            if let address = current.pointee.ai_addr,
               getnameinfo(address, current.pointee.ai_addrlen, &buffer, socklen_t(buffer.count), nil, 0, NI_NUMERICHOST) == 0 {
                let text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                if !result.contains(text) { result.append(text) }
            }
            entry = current.pointee.ai_next
        }
        return result
    }

    /// 127.0.0.0/8, ::1 and ::ffff:127.x.y.z.
    public static func isLoopbackAddress(_ address: String) -> Bool {
        var v4 = in_addr()
        if inet_pton(AF_INET, address, &v4) == 1 { return UInt32(bigEndian: v4.s_addr) >> 24 == 127 }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, address, &v6) == 1 else { return false }
        let bytes = withUnsafeBytes(of: &v6) { Array($0) }
        if bytes[0..<15].allSatisfy({ $0 == 0 }) && bytes[15] == 1 { return true }
        return bytes[0..<10].allSatisfy({ $0 == 0 }) && bytes[10] == 0xff && bytes[11] == 0xff && bytes[12] == 127
    }

    /// The numeric addresses of this machine's interfaces (for a server bound to every interface).
    static func interfaceAddresses() -> [String] {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0, let list else { return [] }
        defer { freeifaddrs(list) }
        var result: [String] = []
        var entry: UnsafeMutablePointer<ifaddrs>? = list
        while let current = entry {
            if let address = current.pointee.ifa_addr, address.pointee.sa_family == sa_family_t(AF_INET) || address.pointee.sa_family == sa_family_t(AF_INET6) {
                let length = socklen_t(address.pointee.sa_family == sa_family_t(AF_INET) ? MemoryLayout<sockaddr_in>.size : MemoryLayout<sockaddr_in6>.size)
                var buffer = [CChar](repeating: 0, count: Int(NI_MAXHOST))
                if getnameinfo(address, length, &buffer, socklen_t(buffer.count), nil, 0, NI_NUMERICHOST) == 0 {
                    var text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                    if let percent = text.firstIndex(of: "%") { text = String(text[..<percent]) } // fe80::1%eth0
                    if !result.contains(text) { result.append(text) }
                }
            }
            entry = current.pointee.ifa_next
        }
        return result
    }

    /// Checks a name given to be allowed besides the server's own (letters, digits, `-`, `.`, `:` of an IPv6
    /// address; at most 253 bytes).
    public static func checkAllowedHost(_ name: String) throws {
        guard !name.isEmpty, name.utf8.count <= 253,
              name.unicodeScalars.allSatisfy({ $0.isASCII && (CharacterSet.alphanumerics.contains($0) || "-.:".unicodeScalars.contains($0)) }) else {
            throw MarkerKitError.invalidArgument("allowed host '\(name.prefix(80))': give a host name or address (letters, digits, - . :)")
        }
    }

    /// The host names a browser may use for this server (checked against `Host`, which defeats DNS
    /// rebinding): loopback's names always; the host given and the address bound; for every interface,
    /// the machine's addresses and names; and `extra` (`--allow-host`, for a reverse proxy's name).
    public func allowedHostNames(extra: [String]) -> Set<String> {
        var names: Set<String> = ["localhost", "127.0.0.1", "::1"]
        names.insert(host.lowercased())
        names.insert(address.lowercased())
        if isWildcard {
            for address in Self.interfaceAddresses() { names.insert(address.lowercased()) }
            var buffer = [CChar](repeating: 0, count: 256)
            if gethostname(&buffer, buffer.count) == 0 {
                let name = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self).lowercased()
                if !name.isEmpty { names.insert(name); names.insert(name + ".local") }
            }
        }
        for name in extra { names.insert(name.lowercased()) }
        return names
    }
}

import Foundation
import NIOSSL

/// The names the console answers to: the listen address, `localhost` (and the loopback
/// addresses when it listens on loopback or every address), the names its TLS certificate
/// is for, and each `--public-name`. A request whose `Host` is another name was sent to a
/// name an attacker points at this machine (DNS rebinding) and gets no page; a POST whose
/// `Origin` is not one of them is refused.
package struct ConsoleNames: Sendable, Equatable {
    /// Names served at the console's own port and scheme.
    package let own: Set<String>
    /// `--public-name` names (a proxy's, a published port's): with the port given, or any port
    /// (nil), over http or https.
    package let published: [String: Int?]
    /// The scheme a browser uses to reach the console itself: https under TLS.
    package let scheme: String

    package init(own: Set<String>, published: [String: Int?], scheme: String) {
        self.own = Set(own.map(ConsoleNames.normalize))
        self.published = Dictionary(published.map { (ConsoleNames.normalize($0.key), $0.value) }, uniquingKeysWith: { first, _ in first })
        self.scheme = scheme
    }

    /// The names of `configuration`, with `certificateNames` (its certificate's DNS names and
    /// addresses).
    package init(configuration: ConsoleConfiguration, certificateNames: [String]) {
        var own: Set<String> = ["localhost", configuration.host]
        if ConsoleConfiguration.isLoopback(configuration.host) || ["0.0.0.0", "::", "*"].contains(configuration.host) {
            own.formUnion(["127.0.0.1", "::1"])
        }
        own.formUnion(certificateNames)
        var published: [String: Int?] = [:]
        for name in configuration.publicNames {
            if let (host, port) = ConsoleNames.split(name) { published[host] = port }
        }
        self.init(own: own, published: published, scheme: configuration.usesTLS ? "https" : "http")
    }

    /// The DNS names and IP addresses the PEM certificate at `path` is for (its subject
    /// alternative names).
    package static func certificateNames(_ path: String) throws -> [String] {
        guard let certificate = try NIOSSLCertificate.fromPEMFile(path).first else { return [] }
        return certificate._subjectAlternativeNames().compactMap { name -> String? in
            let bytes = name.contents.withUnsafeBufferPointer { Array($0) }
            switch name.nameType {
            case .dnsName: return String(decoding: bytes, as: UTF8.self)
            case .ipAddress: return IPAddress(bytes: bytes)?.description
            default: return nil
            }
        }
    }

    /// A host as compared: lower case, without brackets or a trailing dot, an address in its
    /// usual text (`::1` for `0:0::1`).
    static func normalize(_ host: String) -> String {
        var host = host.lowercased()
        if host.hasSuffix(".") { host.removeLast() }
        if let address = IPAddress(host) { return address.description }
        return host
    }

    /// `HOST[:PORT]` (`[::1]:8080` for IPv6) as its normalized host and port; nil when
    /// malformed (a user part, an empty host, a port that is not a number).
    static func split(_ authority: String) -> (host: String, port: Int?)? {
        guard !authority.isEmpty, !authority.contains("@"), !authority.unicodeScalars.contains(where: { $0.value <= 0x20 || $0.value >= 0x7F }) else { return nil }
        var host = Substring(authority)
        var port: Int?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return nil }
            host = authority[authority.index(after: authority.startIndex)..<close]
            let rest = authority[authority.index(after: close)...]
            if !rest.isEmpty {
                guard rest.hasPrefix(":"), let number = Int(rest.dropFirst()), (0...65535).contains(number) else { return nil }
                port = number
            }
        } else if authority.filter({ $0 == ":" }).count == 1, let colon = authority.firstIndex(of: ":") {
            host = authority[..<colon]
            guard let number = Int(authority[authority.index(after: colon)...]), (0...65535).contains(number) else { return nil }
            port = number
        }
        guard !host.isEmpty else { return nil }
        return (normalize(String(host)), port)
    }

    /// Whether a request's `Host` (or `:authority`) is one of the names (any port: the
    /// connection reached this console's port, or a proxy's).
    package func allows(authority: String) -> Bool {
        guard let (host, _) = ConsoleNames.split(authority) else { return false }
        return own.contains(host) || published[host] != nil
    }

    /// Why `origin` (an `Origin` header, `scheme://host[:port]`) is not the console's own,
    /// or nil when it is: one of the own names at the console's scheme and port
    /// (`localPort`), or a public name at its port (any, when none was given).
    package func originProblem(_ origin: String, localPort: Int?) -> String? {
        guard let separator = origin.range(of: "://") else { return "the request's Origin is not a site's" }
        let scheme = origin[..<separator.lowerBound].lowercased()
        let authority = String(origin[separator.upperBound...])
        guard ["http", "https"].contains(scheme), !authority.contains("/"), let (host, port) = ConsoleNames.split(authority) else {
            return "the request's Origin is not a site's"
        }
        let effectivePort = port ?? (scheme == "https" ? 443 : 80)
        if own.contains(host), scheme == self.scheme, localPort == nil || localPort == effectivePort { return nil }
        if let allowed = published[host], allowed == nil || allowed == effectivePort { return nil }
        return "the request's Origin is another site"
    }
}

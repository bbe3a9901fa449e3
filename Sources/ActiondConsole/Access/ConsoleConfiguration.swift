import Foundation
import Logging

/// How `actiond console` serves: where, over what, and who signs people in.
package struct ConsoleConfiguration: Sendable {
    package var host: String
    package var port: Int
    /// The users file; nil or absent: nobody signs in (loopback only, read-only).
    package var usersFile: String?
    package var tlsCertificate: String?
    package var tlsKey: String?
    /// Trust `proxyUserHeader` for the operator's name (their role comes from the users file).
    package var behindProxy: Bool
    package var proxyUserHeader: String
    /// The peers (CIDR ranges) whose `proxyUserHeader` is believed; loopback by default.
    package var trustedProxies: [String]
    /// More names people reach the console by (`NAME` or `NAME:PORT`): a proxy's, a
    /// published port's. The listen address, `localhost` and the certificate's names are
    /// always its names.
    package var publicNames: [String]
    /// How long a sign-in lasts.
    package var sessionLifetime: Duration

    package init(host: String = "127.0.0.1", port: Int = 8080, usersFile: String? = nil,
                 tlsCertificate: String? = nil, tlsKey: String? = nil,
                 behindProxy: Bool = false, proxyUserHeader: String = "X-Remote-User",
                 trustedProxies: [String] = TrustedProxies.loopback, publicNames: [String] = [],
                 sessionLifetime: Duration = .seconds(8 * 3600)) {
        self.host = host
        self.port = port
        self.usersFile = usersFile
        self.tlsCertificate = tlsCertificate
        self.tlsKey = tlsKey
        self.behindProxy = behindProxy
        self.proxyUserHeader = proxyUserHeader
        self.trustedProxies = trustedProxies
        self.publicNames = publicNames
        self.sessionLifetime = sessionLifetime
    }

    package var usesTLS: Bool { tlsCertificate != nil }

    /// The trusted proxies' ranges (valid once `refusal` said nothing).
    package var proxies: TrustedProxies {
        (try? TrustedProxies.parse(trustedProxies).get()) ?? TrustedProxies(ranges: [])
    }

    /// `HOST:PORT` (`[::1]:8080` for IPv6), as `--listen` takes it.
    package static func parseListen(_ text: String) -> (host: String, port: Int)? {
        let host: Substring
        let port: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]"), text[text.index(after: close)...].hasPrefix(":") else { return nil }
            host = text[text.index(after: text.startIndex)..<close]
            port = text[text.index(close, offsetBy: 2)...]
        } else {
            guard let colon = text.lastIndex(of: ":") else { return nil }
            host = text[..<colon]
            port = text[text.index(after: colon)...]
        }
        guard !host.isEmpty, let number = Int(port), (0...65535).contains(number) else { return nil }
        return (String(host), number)
    }

    /// Whether `host` is a loopback address (only this machine can connect).
    package static func isLoopback(_ host: String) -> Bool {
        host == "localhost" || host == "::1" || host.hasPrefix("127.")
    }

    /// Why the console must not start as configured, in a sentence; nil when it may.
    /// Off loopback it needs a users file, and TLS or a proxy in front.
    package func refusal(hasUsers: Bool) -> String? {
        if (tlsCertificate == nil) != (tlsKey == nil) {
            return "--tls-cert and --tls-key go together: give both (the certificate chain and its private key, PEM)"
        }
        if case .failure(let error) = TrustedProxies.parse(trustedProxies) {
            return "--trusted-proxy \(error.text.debugDescription) is refused: an address range such as 10.0.0.5/32, 192.168.0.0/16 or fd00::/8"
        }
        if let name = publicNames.first(where: { ConsoleNames.split($0) == nil }) {
            return "--public-name \(name.debugDescription) is refused: a host name or address, with a port if people use one (console.example.com, console.example.com:8443, [2001:db8::1]:443)"
        }
        if behindProxy && !hasUsers {
            return "--behind-proxy needs a users file: it gives each name the proxy sends its role (\(ConsoleConfiguration.commandHint))"
        }
        if ConsoleConfiguration.isLoopback(host) { return nil }
        var missing: [String] = []
        if !hasUsers { missing.append("a users file (\(ConsoleConfiguration.commandHint))") }
        if !usesTLS && !behindProxy { missing.append("TLS (--tls-cert and --tls-key) or --behind-proxy") }
        if missing.isEmpty { return nil }
        return "the console refuses to listen on \(host), which is not a loopback address, without "
            + missing.joined(separator: " and ") + "; listen on 127.0.0.1 to use it on this machine only"
    }

    private static let commandHint = "console users add NAME --role operator|viewer"
}

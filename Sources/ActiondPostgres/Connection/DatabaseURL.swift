import Foundation
import PostgresNIO

/// A parsed `postgresql://user[:password]@host[:port]/database[?sslmode=…&sslrootcert=…&connect_timeout=…]`.
package struct DatabaseURL: Sendable, Hashable, CustomStringConvertible {
    /// libpq's `sslmode`: `prefer` (the default) and `require` encrypt without verifying the
    /// server's certificate, as libpq does, so a server with a self-signed certificate is
    /// reached; `verify-ca` checks the certificate against `sslrootcert` (else the system's
    /// roots), `verify-full` also the host name. (`allow` is taken as `prefer`.)
    package enum TLSMode: String, Sendable, Hashable {
        case disable, prefer, require
        case verifyCA = "verify-ca"
        case verifyFull = "verify-full"
    }

    package var host: String
    package var port: Int
    package var username: String
    package var password: String?
    package var database: String
    package var tls: TLSMode
    /// `sslrootcert`: the CA certificates (PEM) `verify-ca` and `verify-full` trust.
    package var rootCertificate: String?
    package var connectTimeout: Duration

    package init(host: String, port: Int = 5432, username: String, password: String? = nil,
                database: String, tls: TLSMode = .prefer, connectTimeout: Duration = .seconds(10)) {
        self.host = host
        self.port = port
        self.username = username
        self.password = password
        self.database = database
        self.tls = tls
        self.rootCertificate = nil
        self.connectTimeout = connectTimeout
    }

    /// Parses a connection string; the error names the part that is wrong.
    package init(_ string: String) throws(DatabaseURLError) {
        guard let components = URLComponents(string: string) else {
            throw DatabaseURLError("not a URL; expected postgresql://user[:password]@host:port/database")
        }
        guard let scheme = components.scheme, ["postgresql", "postgres"].contains(scheme) else {
            throw DatabaseURLError("scheme must be postgresql:// (or postgres://), got \(components.scheme.map { "\($0)://" } ?? "none")")
        }
        guard let host = components.host, !host.isEmpty else {
            throw DatabaseURLError("host is missing; expected postgresql://user[:password]@host:port/database")
        }
        guard let user = components.user, !user.isEmpty else {
            throw DatabaseURLError("user is missing; expected postgresql://user[:password]@host:port/database")
        }
        let database = String(components.path.drop { $0 == "/" })
        guard !database.isEmpty, !database.contains("/") else {
            throw DatabaseURLError("database name is missing; expected postgresql://user[:password]@host:port/database")
        }
        self.host = host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : host
        self.port = components.port ?? 5432
        self.username = user.removingPercentEncoding ?? user
        self.password = components.password.map { $0.removingPercentEncoding ?? $0 }
        self.database = database.removingPercentEncoding ?? database
        self.tls = .prefer
        self.rootCertificate = nil
        self.connectTimeout = .seconds(10)
        for item in components.queryItems ?? [] {
            switch item.name {
            case "sslmode":
                switch item.value {
                case "disable": tls = .disable
                case "allow", "prefer": tls = .prefer
                case "require": tls = .require
                case "verify-ca": tls = .verifyCA
                case "verify-full": tls = .verifyFull
                default: throw DatabaseURLError("sslmode must be disable, allow, prefer, require, verify-ca or verify-full, got \(item.value ?? "nothing")")
                }
            case "sslrootcert":
                guard let path = item.value, !path.isEmpty else { throw DatabaseURLError("sslrootcert must be a file's path") }
                rootCertificate = path
            case "connect_timeout":
                guard let seconds = item.value.flatMap(Int.init), seconds > 0 else {
                    throw DatabaseURLError("connect_timeout must be a positive number of seconds, got \(item.value ?? "nothing")")
                }
                connectTimeout = .seconds(seconds)
            default:
                throw DatabaseURLError("unsupported parameter \(item.name); supported: sslmode, sslrootcert, connect_timeout")
            }
        }
    }

    /// The same server, another database.
    package func with(database: String) -> DatabaseURL {
        var copy = self
        copy.database = database
        return copy
    }

    /// The URL with its password, for handing to a child process.
    package var string: String {
        var components = URLComponents()
        components.scheme = "postgresql"
        components.user = username
        components.password = password
        components.host = host.contains(":") ? "[\(host)]" : host
        components.port = port
        components.path = "/" + database
        var items: [URLQueryItem] = []
        if tls != .prefer { items.append(URLQueryItem(name: "sslmode", value: tls.rawValue)) }
        if let rootCertificate { items.append(URLQueryItem(name: "sslrootcert", value: rootCertificate)) }
        if connectTimeout != .seconds(10) {
            items.append(URLQueryItem(name: "connect_timeout", value: "\(max(1, connectTimeout.components.seconds))"))
        }
        if !items.isEmpty { components.queryItems = items }
        return components.string ?? "postgresql://\(username)@\(host):\(port)/\(database)"
    }

    /// Printable without the password.
    package var description: String {
        "postgresql://\(username)\(password == nil ? "" : ":***")@\(host):\(port)/\(database)"
    }

    /// A PostgresNIO client configuration for this URL.
    package func clientConfiguration(maximumConnections: Int = 20) -> PostgresClient.Configuration {
        var configuration = PostgresClient.Configuration(
            host: host, port: port, username: username, password: password, database: database, tls: clientTLS)
        configuration.options.connectTimeout = connectTimeout
        configuration.options.maximumConnections = maximumConnections
        return configuration
    }

    /// A single connection's configuration for this URL (what `ConnectionProbe` opens).
    package func connectionConfiguration() throws -> PostgresConnection.Configuration {
        var configuration = PostgresConnection.Configuration(
            host: host, port: port, username: username, password: password, database: database, tls: try connectionTLS)
        let (seconds, attoseconds) = connectTimeout.components
        configuration.options.connectTimeout = .milliseconds(seconds * 1000 + attoseconds / 1_000_000_000_000_000)
        return configuration
    }

    /// sslmode as libpq reads it: prefer and require encrypt without verifying; verify-ca and
    /// verify-full verify (against sslrootcert when given).
    private var tlsConfigurations: (encryptOnly: TLSConfiguration, verified: TLSConfiguration) {
        var encryptOnly = TLSConfiguration.makeClientConfiguration()
        encryptOnly.certificateVerification = .none
        var verified = TLSConfiguration.makeClientConfiguration()
        verified.certificateVerification = tls == .verifyCA ? .noHostnameVerification : .fullVerification
        if let rootCertificate { verified.trustRoots = .file(rootCertificate) }
        return (encryptOnly, verified)
    }

    private var clientTLS: PostgresClient.Configuration.TLS {
        let (encryptOnly, verified) = tlsConfigurations
        return switch tls {
        case .disable: .disable
        case .prefer: .prefer(encryptOnly)
        case .require: .require(encryptOnly)
        case .verifyCA, .verifyFull: .require(verified)
        }
    }

    private var connectionTLS: PostgresConnection.Configuration.TLS {
        get throws {
            let (encryptOnly, verified) = tlsConfigurations
            return switch tls {
            case .disable: .disable
            case .prefer: .prefer(try NIOSSLContext(configuration: encryptOnly))
            case .require: .require(try NIOSSLContext(configuration: encryptOnly))
            case .verifyCA, .verifyFull: .require(try NIOSSLContext(configuration: verified))
            }
        }
    }
}

/// A connection string that could not be used.
package struct DatabaseURLError: Error, Sendable, CustomStringConvertible {
    package var message: String
    package init(_ message: String) { self.message = message }
    package var description: String { "invalid database URL: \(message)" }
}

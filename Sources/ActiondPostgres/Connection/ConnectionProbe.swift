import Logging
import NIOCore
import NIOSSL
import PostgresNIO

/// Opens one connection before a command builds its pool, so that a database it cannot use
/// is reported as libpq would: the host, the port and the cause (refused, host unknown,
/// TLS, authentication, database missing). PostgresNIO's pool reports every one of these as
/// `connectionCreationCircuitBreakerTripped`, after a minute of retries.
///
/// A cause that may pass by itself (nothing listening yet) is retried for up to `patience`,
/// with a warning naming it; one that will not (authentication, a missing database, TLS, an
/// unknown host) fails at once. A server that answers but is out of connection slots or
/// starting up, or one that does not answer within the connect timeout, is left to the
/// pool, which waits for it as before (the latter with a warning naming host and port).
package enum ConnectionProbe {
    /// Connects to `url` and closes the connection; throws `ConnectionFailure` naming why not.
    package static func check(_ url: DatabaseURL, patience: Duration = .seconds(5), logger: Logger) async throws {
        let clock = ContinuousClock()
        let deadline = clock.now + patience
        var delay = Duration.milliseconds(100)
        var warned: ContinuousClock.Instant?
        while true {
            do {
                let connection = try await PostgresConnection.connect(configuration: url.connectionConfiguration(), id: 0, logger: logger)
                try? await connection.close()
                return
            } catch let error as PSQLError where [.tooManyConnections, .cannotConnectNow].contains(error.sqlState) {
                // The server is there, out of connection slots or starting: the pool waits
                // for it as it always has.
                return
            } catch where isTimeout(error) {
                // Slow, not refused (a loaded server, a congested network): say so, and let
                // the pool keep trying as it always has.
                logger.warning("\(ConnectionFailure(url: url, cause: cause(of: error, url: url))); the pool keeps trying")
                return
            } catch {
                let failure = ConnectionFailure(url: url, cause: cause(of: error, url: url))
                guard isTransient(error), clock.now + delay < deadline else { throw failure }
                if warned.map({ $0.duration(to: clock.now) >= .seconds(5) }) ?? true {
                    logger.warning("\(failure); trying again for up to \(patience)")
                    warned = clock.now
                }
                try await Task.sleep(for: delay)
                delay = min(delay * 2, .seconds(2))
            }
        }
    }

    /// Whether connecting took longer than the connect timeout.
    static func isTimeout(_ error: any Error) -> Bool {
        if let error = error as? PSQLError { return error.underlying.map(isTimeout) ?? false }
        if let error = error as? NIOConnectionError { return error.connectionErrors.contains { isTimeout($0.error) } }
        if let error = error as? ChannelError, case .connectTimeout = error { return true }
        if let error = error as? IOError { return error.errnoCode == ETIMEDOUT }
        return false
    }

    /// Whether `error` may pass by itself: worth connecting again.
    static func isTransient(_ error: any Error) -> Bool {
        if let error = error as? PSQLError {
            if let state = error.sqlState { return state.errorClass == "53" || state.errorClass == "08" || state == .cannotConnectNow }
            if [.serverClosedConnection, .uncleanShutdown].contains(error.code) { return true }
            return error.underlying.map(isTransient) ?? false
        }
        if let error = error as? NIOConnectionError {
            return error.dnsAAAAError == nil && error.dnsAError == nil && error.connectionErrors.contains { isTransient($0.error) }
        }
        if let error = error as? IOError { return [ECONNREFUSED, ETIMEDOUT, EHOSTUNREACH, ENETUNREACH, ECONNRESET].contains(error.errnoCode) }
        if let error = error as? ChannelError, case .connectTimeout = error { return true }
        return false
    }

    /// What went wrong, in words an operator can act on (never the password).
    static func cause(of error: any Error, url: DatabaseURL) -> String {
        if let error = error as? PSQLError {
            if let state = error.sqlState {
                let message = error.serverInfo?[.message] ?? ""
                switch state {
                case .invalidPassword, .invalidAuthorizationSpecification: return "authentication failed for user \(url.username) (\(state): \(message))"
                case .invalidCatalogName: return "database \(url.database) does not exist (\(state))"
                case .cannotConnectNow: return "the server is starting up or shutting down (\(state))"
                case .tooManyConnections: return "the server has no connection slots left (\(state))"
                default: return "the server refused the connection (\(state): \(message))"
                }
            }
            switch error.code {
            case .sslUnsupported: return "the server does not accept TLS, which sslmode=\(url.tls.rawValue) requires"
            case .authMechanismRequiresPassword: return "the server asks for a password and the URL has none"
            case .unsupportedAuthMechanism: return "the server asks for an authentication method PostgresNIO does not support"
            default: break
            }
            if let underlying = error.underlying { return cause(of: underlying, url: url) }
            return "\(error.code)"
        }
        if let error = error as? NIOSSLError { return "TLS failed: \(error)" }
        if let error = error as? BoringSSLError { return "TLS failed: \(error) (the certificate could not be verified: sslmode=\(url.tls.rawValue), sslrootcert)" }
        if let error = error as? NIOConnectionError {
            if let dns = error.dnsAAAAError ?? error.dnsAError { return "host \(url.host) not found (\(dns))" }
            if let first = error.connectionErrors.first { return cause(of: first.error, url: url) }
            return "no address to connect to"
        }
        if let error = error as? IOError {
            switch error.errnoCode {
            case ECONNREFUSED: return "connection refused (nothing listens there)"
            case ETIMEDOUT: return "timed out"
            case EHOSTUNREACH, ENETUNREACH: return "host unreachable"
            default: return "\(error)"
            }
        }
        if let error = error as? ChannelError, case .connectTimeout = error {
            return "no answer within \(url.connectTimeout)"
        }
        return "\(error)"
    }
}

/// A database actiond could not connect to: host, port, and the cause.
package struct ConnectionFailure: Error, Sendable, CustomStringConvertible {
    package var host: String
    package var port: Int
    package var cause: String

    init(url: DatabaseURL, cause: String) {
        host = url.host
        port = url.port
        self.cause = cause
    }

    package var description: String { "cannot connect to PostgreSQL at \(host):\(port): \(cause)" }
}

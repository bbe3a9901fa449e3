import Hummingbird
import Logging
import NIOCore
import Prometheus

/// Where `actiond work --http-port` listens.
package struct HTTPEndpoint: Sendable, Hashable {
    /// The address to listen on (loopback by default; `0.0.0.0`: every interface).
    package var host: String
    /// 0: any free port (the port is logged once the server runs).
    package var port: Int

    package init(host: String = "127.0.0.1", port: Int) {
        self.host = host
        self.port = port
    }
}

/// The worker's operations endpoint (docs/contract.md, "Operating"), on Hummingbird:
/// `GET /metrics` (the Prometheus registry's text format), `GET /health/live` (200 while
/// the process runs) and `GET /health/ready` (200, or 503 with a one-line reason).
package enum OperationsServer {
    /// The Hummingbird application serving the three routes on `endpoint`; a `Service`.
    package static func application(
        endpoint: HTTPEndpoint, registry: PrometheusCollectorRegistry, readiness: Readiness, logger: Logger
    ) -> some ApplicationProtocol {
        let router = Router()
        router.get("/metrics") { _, _ -> Response in
            var text: [UInt8] = []
            registry.emit(into: &text)
            return Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                            body: ResponseBody(byteBuffer: ByteBuffer(bytes: text)))
        }
        router.get("/health/live") { _, _ in plain(.ok, "live") }
        router.get("/health/ready") { _, _ -> Response in
            if let problem = readiness.problem() { return plain(.serviceUnavailable, problem) }
            return plain(.ok, "ready")
        }
        return Application(
            router: router,
            // An HTTP/1.0 request's connection closes after its response (HTTP10ConnectionClose).
            server: .http1(configuration: .init(additionalChannelHandlers: [HTTP10ConnectionClose()])),
            configuration: ApplicationConfiguration(address: .hostname(endpoint.host, port: endpoint.port), serverName: "actiond"),
            onServerRunning: { channel in
                logger.notice("serving /metrics, /health/live and /health/ready", metadata: [
                    "http_host": "\(endpoint.host)", "http_port": "\(channel.localAddress?.port ?? endpoint.port)",
                ])
            },
            logger: logger)
    }

    private static func plain(_ status: HTTPResponse.Status, _ text: String) -> Response {
        Response(status: status, headers: [.contentType: "text/plain; charset=utf-8"],
                 body: ResponseBody(byteBuffer: ByteBuffer(string: text + "\n")))
    }
}

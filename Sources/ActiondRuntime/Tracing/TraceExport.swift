import ActiondDomain
import Foundation
import Logging
import OTel
import ServiceLifecycle
import Synchronization
import Tracing

/// Traces of the workers' batches and decisions, exported over OTLP by swift-otel. Off
/// unless the standard OpenTelemetry settings ask for them: `OTEL_TRACES_EXPORTER=otlp`, or an
/// OTLP endpoint (`OTEL_EXPORTER_OTLP_ENDPOINT`, `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`); never
/// when `OTEL_SDK_DISABLED=true` or `OTEL_TRACES_EXPORTER=none`. Everything else (protocol,
/// headers, sampler, batch processor, service name, resource) is swift-otel's reading of the
/// same variables; this build takes OTLP/HTTP (`http/protobuf`, the default here, or
/// `http/json`), not gRPC.
///
/// Only the tracing backend is made (actiond's logs and Prometheus metrics stay as they are),
/// and the tracer is handed to the workers rather than bootstrapped process-wide: with traces
/// off the workers hold no tracer and start no span.
package struct TraceExport: Sendable {
    /// The tracer the workers start spans with.
    package let tracer: any Tracer
    /// Exports the finished spans in the background; flushes them when shut down.
    package let service: any Service

    /// Whether `environment` asks for traces.
    package static func isConfigured(_ environment: [String: String]) -> Bool {
        if environment["OTEL_SDK_DISABLED"]?.lowercased() == "true" { return false }
        if let exporter = environment["OTEL_TRACES_EXPORTER"] { return exporter.lowercased() != "none" }
        return ["OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"].contains { environment[$0]?.isEmpty == false }
    }

    /// The exporter `environment` configures, or nil when traces are off.
    package static func make(environment: [String: String], logger: Logger) throws -> TraceExport? {
        guard isConfigured(environment) else { return nil }
        var configuration = OTel.Configuration.default
        configuration.serviceName = "actiond"
        configuration.logs.enabled = false
        configuration.metrics.enabled = false
        configuration.traces.exporter = .otlp
        configuration.traces.otlpExporter.protocol = .httpProtobuf
        // swift-otel applies the OTEL_* variables over these.
        let backend = try OTel.makeTracingBackend(configuration: configuration)
        logger.notice("exporting traces over OTLP", metadata: [
            "endpoint": "\(loggable(environment["OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"] ?? environment["OTEL_EXPORTER_OTLP_ENDPOINT"]))",
        ])
        return TraceExport(tracer: backend.factory, service: backend.service)
    }

    /// An endpoint as a log line may show it: scheme, host and port only (a URL may carry a
    /// user and password, or a token in its query).
    static func loggable(_ endpoint: String?) -> String {
        guard let endpoint else { return "the default" }
        guard let url = URLComponents(string: endpoint), let host = url.host, let scheme = url.scheme else { return "(not a URL)" }
        return "\(scheme)://\(host)" + (url.port.map { ":\($0)" } ?? "")
    }
}

extension TraceExport {
    /// Runs `body` with the tracer `environment` configures (nil when traces are off), the
    /// exporter running beside it; when `body` returns, the exporter is shut down, exporting
    /// what `body`'s spans left: for a command that ends (`actiond submit`).
    package static func withTracer<Result: Sendable>(environment: [String: String], logger: Logger,
                                                    _ body: @escaping @Sendable ((any Tracer)?) async throws -> Result) async throws -> Result {
        guard let traces = try make(environment: environment, logger: logger) else { return try await body(nil) }
        let job = OneShot { try await body(traces.tracer) }
        try await ServiceGroup(configuration: ServiceGroupConfiguration(services: [
            .init(service: traces.service),
            .init(service: job, successTerminationBehavior: .gracefullyShutdownGroup, failureTerminationBehavior: .gracefullyShutdownGroup),
        ], logger: logger)).run()
        return try job.result()
    }

    /// `body` as a service that ends the group when it returns, keeping what it returned.
    private final class OneShot<Result: Sendable>: Service, Sendable {
        private let body: @Sendable () async throws -> Result
        private let outcome = Mutex<Swift.Result<Result, any Error>?>(nil)

        init(_ body: @escaping @Sendable () async throws -> Result) { self.body = body }

        func run() async throws {
            do {
                let value = try await body()
                outcome.withLock { $0 = .success(value) }
            } catch {
                outcome.withLock { $0 = .failure(error) }
            }
        }

        func result() throws -> Result {
            guard let outcome = outcome.withLock({ $0 }) else { throw CancellationError() }
            return try outcome.get()
        }
    }
}

/// A W3C trace context's headers, written by a tracer's `inject`.
package struct TraceHeaders: Sendable {
    package var values: [String: String] = [:]

    package init() {}

    /// The envelope's `trace` field for these headers (JSON text), or nil without a traceparent.
    package var envelopeField: String? {
        guard let parent = values["traceparent"] else { return nil }
        var fields: [String: JSONValue] = ["traceparent": .string(parent)]
        if let state = values["tracestate"], !state.isEmpty { fields["tracestate"] = .string(state) }
        return try? JSONValue.object(fields).jsonText()
    }

    /// Writes each header into `TraceHeaders.values`.
    package struct Writer: Injector {
        package init() {}
        package func inject(_ value: String, forKey key: String, into carrier: inout TraceHeaders) {
            carrier.values[key] = value
        }
    }
}

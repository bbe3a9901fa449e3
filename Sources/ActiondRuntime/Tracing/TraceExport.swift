import Logging
import OTel
import ServiceLifecycle
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
            "endpoint": "\(environment["OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"] ?? environment["OTEL_EXPORTER_OTLP_ENDPOINT"] ?? "the default")",
        ])
        return TraceExport(tracer: backend.factory, service: backend.service)
    }
}

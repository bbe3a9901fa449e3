@testable import ActiondRuntime
import Testing

/// Whether traces are on comes from the standard OTEL_* variables alone, and the endpoint a
/// log line names never carries what a URL may hide (a user, a password, a token).
@Suite("Trace export settings")
struct TraceExportTests {
    @Test(arguments: [
        ([:], false),
        (["OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318"], true),
        (["OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://collector:4318/v1/traces"], true),
        (["OTEL_TRACES_EXPORTER": "otlp"], true),
        (["OTEL_TRACES_EXPORTER": "none", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318"], false),
        (["OTEL_SDK_DISABLED": "true", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318"], false),
        (["OTEL_EXPORTER_OTLP_ENDPOINT": ""], false),
        (["OTEL_SERVICE_NAME": "actiond"], false),
    ] as [([String: String], Bool)])
    func tracesAreOnOnlyWhenTheStandardSettingsAsk(_ environment: [String: String], _ on: Bool) {
        #expect(TraceExport.isConfigured(environment) == on, "\(environment)")
    }

    @Test func theLoggedEndpointKeepsNoUserPasswordPathOrQuery() {
        #expect(TraceExport.loggable("https://ana:s3cret@collector.example:4318/v1/traces?token=abc") == "https://collector.example:4318")
        #expect(TraceExport.loggable("http://collector") == "http://collector")
        #expect(TraceExport.loggable(nil) == "the default")
        #expect(!TraceExport.loggable("s3cret token").contains("s3cret"))
    }
}

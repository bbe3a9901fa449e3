import Logging

/// Wraps the process's log handler so that no event content reaches the log. actiond's own
/// records never carry it (errors are logged by SQLSTATE and message, see
/// `DatabaseFailure.describe`); PostgresNIO's trace records print protocol messages whole,
/// and a server error's DETAIL and CONTEXT quote the input that failed ("JSON data, line 1:
/// …"), so they are dropped. Its debug records and everything else pass through.
package struct ContentFreeLogHandler: LogHandler {
    private var wrapped: any LogHandler

    package init(_ wrapped: any LogHandler) {
        self.wrapped = wrapped
    }

    /// Whether a record from `source` at `level` may quote event content.
    package static func mayQuoteContent(level: Logger.Level, source: String) -> Bool {
        level == .trace && source == "PostgresNIO"
    }

    package func log(event: LogEvent) {
        guard !Self.mayQuoteContent(level: event.level, source: event.source) else { return }
        wrapped.log(event: event)
    }

    package subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { wrapped[metadataKey: key] }
        set { wrapped[metadataKey: key] = newValue }
    }

    package var metadata: Logger.Metadata {
        get { wrapped.metadata }
        set { wrapped.metadata = newValue }
    }

    package var logLevel: Logger.Level {
        get { wrapped.logLevel }
        set { wrapped.logLevel = newValue }
    }
}

import Foundation
import Logging
#if canImport(Glibc)
import Glibc
#endif

/// Logs to standard error as one JSON object per line: `time` (RFC 3339, UTC, milliseconds),
/// `level`, `message`, `label`, `source`, and each metadata entry as a field of its own (a
/// metadata key that is one of those names is written as `metadata.KEY`). For log pipelines
/// (`--log-format json`). Written by hand: swift-log ships only a text handler, and no JSON
/// handler is among the packages this project builds from.
package struct JSONLogHandler: LogHandler {
    package var metadata: Logger.Metadata = [:]
    package var logLevel: Logger.Level = .info
    private let label: String

    package init(label: String) {
        self.label = label
    }

    package subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    package func log(event: LogEvent) {
        var object: [String: Any] = [:]
        for (key, value) in metadata.merging(event.metadata ?? [:], uniquingKeysWith: { $1 }) {
            object[key] = Self.json(value)
        }
        for key in Self.reserved where object[key] != nil {
            object["metadata.\(key)"] = object.removeValue(forKey: key)
        }
        object["time"] = Date().formatted(.iso8601.year().month().day().time(includingFractionalSeconds: true).timeZone(separator: .omitted))
        object["level"] = event.level.rawValue
        object["message"] = "\(event.message)"
        object["label"] = label
        object["source"] = event.source
        guard var line = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]) else { return }
        line.append(UInt8(ascii: "\n"))
        // One write per line: lines from several threads never interleave (a pipe writes up
        // to PIPE_BUF bytes at once; longer lines are rare).
        line.withUnsafeBytes { bytes in _ = write(2, bytes.baseAddress, bytes.count) }
    }

    private static let reserved = ["time", "level", "message", "label", "source"]

    private static func json(_ value: Logger.Metadata.Value) -> Any {
        switch value {
        case .string(let text): text
        case .stringConvertible(let convertible): "\(convertible)"
        case .array(let values): values.map(json)
        case .dictionary(let entries): entries.mapValues(json)
        }
    }
}

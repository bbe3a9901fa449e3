import ActiondDomain
import Foundation
import Logging
import PostgresNIO

/// The report views (`actiond.report_*`, docs/contract.md, "Reports"): which exist, and their rows.
package enum ReportStore {
    /// A report view and the one-line description its SQL comment gives.
    package struct Report: Sendable, Equatable {
        package var name: String
        package var description: String
    }

    /// A report's rows: column names in view order, each row a JSON object with typed values.
    package struct Rows: Sendable {
        package var columns: [String]
        package var rows: [[String: JSONValue]]
        /// The rows as PostgreSQL wrote them: a JSON array of objects, columns in view order.
        package var json: String
    }

    package struct UnknownReport: Error, CustomStringConvertible {
        package var name: String
        package var known: [String]
        package var description: String { "report: no report named \"\(name)\"; known reports: \(known.joined(separator: ", "))" }
    }

    /// Every report view, by name.
    package static func list(on client: PostgresClient, logger: Logger) async throws -> [Report] {
        let rows = try await client.query("""
            SELECT c.relname::text, coalesce(obj_description(c.oid, 'pg_class'), '')
            FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
            WHERE n.nspname = 'actiond' AND c.relkind = 'v' AND c.relname LIKE 'report\\_%'
            ORDER BY c.relname
            """, logger: logger)
        var reports: [Report] = []
        for try await (name, description) in rows.decode((String, String).self) {
            reports.append(Report(name: name, description: description))
        }
        return reports
    }

    /// The view `name` (with or without its `report_` prefix), or UnknownReport.
    package static func resolve(_ name: String, on client: PostgresClient, logger: Logger) async throws -> String {
        let known = try await list(on: client, logger: logger).map(\.name)
        let full = name.hasPrefix("report_") ? name : "report_\(name)"
        guard known.contains(full) else { throw UnknownReport(name: name, known: known) }
        return full
    }

    /// Which rows of report_trail: one user's events or one request's, since a time.
    package struct TrailFilter: Sendable {
        package var userID: String?
        package var requestID: String?
        package var since: Date?

        package init(userID: String? = nil, requestID: String? = nil, since: Date? = nil) {
            self.userID = userID
            self.requestID = requestID
            self.since = since
        }
    }

    /// report_trail's rows for `filter`, in log order (newest last).
    package static func trail(_ filter: TrailFilter, on client: PostgresClient, logger: Logger) async throws -> Rows {
        let columns = try await columns(of: "report_trail", on: client, logger: logger)
        let json = try await client.query("""
            SELECT coalesce(json_agg(r ORDER BY r.position), '[]')::text FROM actiond.report_trail r
            WHERE (\(filter.userID)::text IS NULL OR r.user_id = \(filter.userID))
              AND (\(filter.requestID)::text IS NULL OR r.request_id = \(filter.requestID))
              AND (\(filter.since)::timestamptz IS NULL OR r.submitted_at >= \(filter.since))
            """, logger: logger).collect().first!.decode(String.self)
        return Rows(columns: columns, rows: try JSONDecoder().decode([[String: JSONValue]].self, from: Data(json.utf8)), json: json)
    }

    private static func columns(of view: String, on client: PostgresClient, logger: Logger) async throws -> [String] {
        try await client.query("""
            SELECT a.attname::text FROM pg_attribute a
            WHERE a.attrelid = to_regclass('actiond.' || quote_ident(\(view))) AND a.attnum > 0 AND NOT a.attisdropped
            ORDER BY a.attnum
            """, logger: logger).collect().map { try $0.decode(String.self) }
    }

    /// The rows of report `view` (a name `resolve` returned).
    package static func rows(of view: String, on client: PostgresClient, logger: Logger) async throws -> Rows {
        let columns = try await columns(of: view, on: client, logger: logger)
        // The view name was checked against the catalog; quote_ident makes it an identifier.
        let identifier = try await client.query("SELECT quote_ident(\(view))", logger: logger).collect().first!.decode(String.self)
        let json = try await client.query(
            "SELECT coalesce(json_agg(r), '[]')::text FROM actiond.\(unescaped: identifier) r", logger: logger)
            .collect().first!.decode(String.self)
        let parsed = try JSONDecoder().decode([[String: JSONValue]].self, from: Data(json.utf8))
        return Rows(columns: columns, rows: parsed, json: json)
    }

    /// Drops per-minute report counters older than two days.
    package static func pruneMinutes(on connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query("SELECT actiond.prune_report_minutes()", logger: logger).drain()
    }
}

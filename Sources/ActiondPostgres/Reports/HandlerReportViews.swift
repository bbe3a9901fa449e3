import ActiondDomain
import Foundation
import Logging
import PostgresNIO

/// The report views handlers declare (`CategoryHandler.reportView`), generated as SQL over
/// the projections and installed by `actiond migrate` after the numbered migrations. A view
/// is re-created when its generated definition changes; views of handlers this build does
/// not have are left alone (another build installed them).
enum HandlerReportViews {
    /// The view's SQL: one row per state of `stateKind`, its id and user first, then each
    /// column read from the state's report figures, then the shared state's.
    static func definition(_ view: ReportView, stateKind: String, sharedKind: String?) -> String {
        // Names, kinds and keys are checked identifiers (HandlerSetValidator): no quoting needed.
        var columns = ["s.stream_id as \(view.idColumn)", "s.user_id"]
        columns += view.columns.map { expression($0, table: "s") }
        var shared = ""
        var from = "from actiond.projections s"
        if let sharedKind, !view.sharedColumns.isEmpty {
            columns += view.sharedColumns.map { expression($0, table: "h") }
            // The shared rows first, materialized, then joined: on Citus they are stored
            // under keys of their own (shared_stream_key.sql, not the invitees'), and
            // Citus refuses the direct join of the two when the view is itself wrapped
            // (`json_agg` of it, as `actiond report --format json` does); a materialized CTE
            // it computes once and ships. By kind alone: a shared kind has no per-user rows.
            shared = """
                with h as materialized (
                    select stream_id, state from actiond.projections where kind = '\(sharedKind)'
                )

                """
            from += "\nleft join h on h.stream_id = s.stream_id"
        }
        return """
            create view actiond.\(view.name) as
            \(shared)select \(columns.joined(separator: ",\n       "))
            \(from)
            where s.kind = '\(stateKind)'
            order by s.stream_id, s.user_id
            """
    }

    private static func expression(_ column: ReportColumn, table: String) -> String {
        let value = "(\(table).state -> 'report' ->> '\(column.key)')::\(column.type.rawValue)"
        guard let missing = column.whenMissing else { return "\(value) as \(column.name)" }
        return "coalesce(\(value), \(literal(missing))::\(column.type.rawValue)) as \(column.name)"
    }

    /// A string literal that reads the same whatever `standard_conforming_strings` is: an
    /// escape string with its backslashes and quotes doubled.
    static func literal(_ text: String) -> String {
        "E'" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "''") + "'"
    }

    /// Creates or re-creates the views of `handlers` whose definition changed; returns their names.
    static func install(_ handlers: CategoryHandlers, on connection: PostgresConnection, logger: Logger, force: Bool = false) async throws -> [String] {
        var installed: [String] = []
        for (handler, view) in handlers.reportViews {
            guard let kinds = handlers.kinds(of: handler) else { continue }
            let sql = definition(view, stateKind: kinds.state, sharedKind: kinds.shared)
            let comment = "comment on view actiond.\(view.name) is \(literal(view.description))"
            let checksum = try await Migrator.checksum(of: sql + "\n" + comment, on: connection, logger: logger)
            let current = try await connection.query(
                "SELECT handler, checksum, to_regclass('actiond.' || name) IS NOT NULL FROM actiond.handler_views WHERE name = \(view.name)",
                logger: logger).collect().first?.decode((String, String, Bool).self)
            if let current, current.1 == checksum, current.2, !force { continue }
            if let current, current.0 != handler {
                throw MigrationError(code: .statementFailed, migration: "view \(view.name)",
                                     message: "actiond.\(view.name) is handler \(current.0)'s report view; handler \(handler) must name its view otherwise")
            }
            try await connection.transaction(logger: logger) { connection in
                let exists = try await connection.query(
                    "SELECT to_regclass('actiond.' || \(view.name)) IS NOT NULL", logger: logger).collect().first?.decode(Bool.self) ?? false
                if exists && current == nil {
                    throw MigrationError(code: .statementFailed, migration: "view \(view.name)",
                                         message: "actiond.\(view.name) exists and was not made by a handler; handler \(handler) cannot install its report view under that name")
                }
                do {
                    try await connection.query(PostgresQuery(unsafeSQL: "drop view if exists actiond.\(view.name)"), logger: logger).drain()
                    try await connection.query(PostgresQuery(unsafeSQL: sql), logger: logger).drain()
                    try await connection.query(PostgresQuery(unsafeSQL: comment), logger: logger).drain()
                    // Readers read every report (Schema/grants/grants.sql grants the others).
                    try await connection.query(PostgresQuery(unsafeSQL: "grant select on actiond.\(view.name) to actiond_reader"), logger: logger).drain()
                } catch {
                    throw MigrationError(code: .statementFailed, migration: "view \(view.name) of handler \(handler)", message: DatabaseFailure.describe(error))
                }
                try await connection.query("""
                    INSERT INTO actiond.handler_views (name, handler, checksum) VALUES (\(view.name), \(handler), \(checksum))
                    ON CONFLICT (name) DO UPDATE SET handler = excluded.handler, checksum = excluded.checksum, installed_at = now()
                    """, logger: logger).drain()
            }
            installed.append(view.name)
        }
        return installed
    }
}

import ActiondPostgres
import Logging
import PostgresNIO

/// How a connection's statements have read an `actiond` table: its sequential scans and the
/// heap rows its index scans fetched, from pg_stat_xact_user_tables. That view also holds what
/// the backend has not flushed yet from earlier transactions, so a test compares two readings
/// taken around the statements it measures, in one transaction (`during`: the backend flushes
/// its figures only between transactions).
struct TableScans: Equatable {
    var sequential: Int
    var fetchedByIndex: Int

    static func read(_ table: String, on connection: PostgresConnection, logger: Logger) async throws -> TableScans {
        let row = try await connection.query("""
            SELECT coalesce(seq_scan, 0)::int, coalesce(idx_tup_fetch, 0)::int
            FROM pg_stat_xact_user_tables WHERE schemaname = 'actiond' AND relname = \(table)
            """, logger: logger).collect().first
        let (sequential, fetched) = try row?.decode((Int, Int).self) ?? (0, 0)
        return TableScans(sequential: sequential, fetchedByIndex: fetched)
    }

    /// What `body`'s statements on `connection` did to `table`, in a transaction of their own
    /// (committed), with what `body` returned.
    static func during<Result>(_ table: String, on connection: PostgresConnection, logger: Logger,
                               _ body: () async throws -> Result) async throws -> (TableScans, Result) {
        try await connection.query("BEGIN", logger: logger).drain()
        let before = try await read(table, on: connection, logger: logger)
        let result = try await body()
        let after = try await read(table, on: connection, logger: logger)
        try await connection.query("COMMIT", logger: logger).drain()
        return (TableScans(sequential: after.sequential - before.sequential, fetchedByIndex: after.fetchedByIndex - before.fetchedByIndex), result)
    }
}

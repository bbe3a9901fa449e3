import ActiondDomain
@testable import ActiondPostgres
import ActiondTestSupport
import Foundation
import PostgresNIO
import Testing

/// 013_no_statistics_of_documents.sql on a database at 012: ANALYZE keeps the statistics of
/// every column but the JSON documents (the log's data, domain events' data, projections'
/// state), on the log's partitions already there and on those made after, and the workers go
/// on deciding events as before.
@Suite("Migration 013 on a live database")
struct DocumentStatisticsMigrationTests {
    /// Each table's document, and a column whose statistics stay.
    static let documents = [("events", "data", "user_id"), ("domain_events", "data", "stream_user"),
                            ("projections", "state", "user_id"), ("projections_rebuild", "state", "user_id")]

    @Test func analyzeSkipsTheDocumentsAndKeepsTheOtherColumns() async throws {
        try await TestDatabase.with(migrated: false) { db in
            do {
                try await db.client.withConnection { connection in
                    try await EarlierMigrations.apply(below: 13, on: connection, logger: db.logger)
                    try await connection.query("RESET ROLE", logger: db.logger).drain()
                }
                let report = try await Migrator(client: db.client, logger: db.logger).migrate()
                #expect(report.applied == Migration.names(from: "013_no_statistics_of_documents.sql"))
                func target(_ table: String, _ column: String) async throws -> [String] {
                    try await db.strings(sql: """
                        SELECT coalesce(attstattarget, -1)::text FROM pg_attribute
                        WHERE attrelid = 'actiond.\(table)'::regclass AND attname = '\(column)'
                        """)
                }
                for (table, column, other) in Self.documents {
                    #expect(try await target(table, column) == ["0"], "\(table).\(column)")
                    #expect(try await target(table, other) == ["-1"], "\(table).\(other) keeps the default")
                }
                // The partition there before the migration, and one made after it.
                let partitions = try await db.strings(sql: "SELECT 'events_' || lower_bound FROM actiond.log_partitions ORDER BY lower_bound")
                #expect(!partitions.isEmpty)
                for partition in partitions { #expect(try await target(partition, "data") == ["0"], "\(partition).data") }
                let top = try await db.strings(sql: "SELECT max(upper_bound)::text FROM actiond.log_partitions").first ?? "0"
                #expect(try await db.strings(sql: "SELECT actiond.add_log_partitions(\(top))::text") != ["0"])
                let made = try await db.strings(sql: "SELECT 'events_' || max(lower_bound) FROM actiond.log_partitions").first ?? ""
                #expect(!partitions.contains(made))
                #expect(try await target(made, "data") == ["0"], "\(made).data, made after the migration")
                #expect(try await target(made, "user_id") == ["-1"])

                // Events decided as before; ANALYZE then has statistics of their users, none of
                // their documents.
                let lines = (1...60).map { i in
                    EventJSON.envelope("c\(i)", "meeting.cancelled", user: "u\(i % 7)", at: "2026-11-27T10:00:00Z",
                                       data: ["meeting_id": .string("m\(i % 11)")]).json
                }
                try await LiveMigration.submit(lines, db)
                try await LiveMigration.drain(db)
                #expect(try await db.strings(sql: "SELECT count(*)::text FROM actiond.outcomes WHERE outcome = 'applied'") == ["60"])
                for (table, _, _) in Self.documents.dropLast() { _ = try await db.strings(sql: "ANALYZE actiond.\(table)") }
                for (table, column, other) in [(partitions[0], "data", "user_id"), ("domain_events", "data", "stream_user"), ("projections", "state", "user_id")] {
                    let analyzed = try await db.strings(sql: "SELECT attname::text FROM pg_stats WHERE schemaname = 'actiond' AND tablename = '\(table)' ORDER BY 1")
                    #expect(analyzed.contains(other), "\(table): \(analyzed)")
                    #expect(!analyzed.contains(column), "\(table) has statistics of \(column): \(analyzed)")
                }
            } catch {
                Issue.record("\(String(reflecting: error))")
            }
        }
    }
}

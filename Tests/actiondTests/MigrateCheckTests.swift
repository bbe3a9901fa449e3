import ActiondPostgres
import ActiondTestSupport
import Foundation
import PostgresNIO
import Testing

/// `actiond migrate --check` through the binary: it changes nothing, names a function changed
/// by hand and exits 1; `actiond migrate` restores it and says so; then the check passes.
@Suite("migrate --check", .timeLimit(.minutes(2)))
struct MigrateCheckTests {
    @Test func aFunctionChangedByHandIsListedAndMigrateRestoresIt() async throws {
        try await TestDatabase.with { db in
            let clean = try await ActiondProcess.run(["migrate", "--check"], database: db.url)
            #expect(clean.status == 0 && clean.standardOutput.contains("schema current"), "\(clean.standardOutput)\(clean.standardError)")

            try await db.client.withConnection { connection in
                try await connection.query("SET ROLE actiond_owner", logger: db.logger).drain()
                try await connection.query(PostgresQuery(unsafeSQL: HandMadeDefinition.queueDepth), logger: db.logger).drain()
                try await connection.query("RESET ROLE", logger: db.logger).drain()
            }
            let drifted = try await ActiondProcess.run(["migrate", "--check"], database: db.url)
            #expect(drifted.status == 1, "\(drifted.standardOutput)\(drifted.standardError)")
            #expect(drifted.standardOutput.contains("drift: function actiond.queue_depth() (changed)"), "\(drifted.standardOutput)\(drifted.standardError)")
            let body = "SELECT prosrc FROM pg_proc WHERE oid = 'actiond.queue_depth()'::regprocedure"
            #expect(try await db.scalar(PostgresQuery(unsafeSQL: body), as: String.self).contains("made by hand"), "--check changed nothing")

            let migrated = try await ActiondProcess.run(["migrate"], database: db.url)
            #expect(migrated.status == 0, "\(migrated.standardOutput)\(migrated.standardError)")
            #expect(migrated.standardOutput.contains("restored function actiond.queue_depth() (changed)"), "\(migrated.standardOutput)\(migrated.standardError)")
            #expect(!(try await db.scalar(PostgresQuery(unsafeSQL: body), as: String.self).contains("made by hand")))
            let after = try await ActiondProcess.run(["migrate", "--check"], database: db.url)
            #expect(after.status == 0, "\(after.standardOutput)\(after.standardError)")
        }
    }
}

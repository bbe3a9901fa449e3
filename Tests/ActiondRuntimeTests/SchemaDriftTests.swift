import ActiondBuiltInHandlers
import ActiondDomain
import ActiondPostgres
import ActiondRuntime
import ActiondTestSupport
import Logging
import PostgresNIO
import Testing

/// A function changed by hand after migrate (its file's checksum unchanged) is drift: readiness
/// says so, and migrate puts this build's definition back. (`migrate --check` through the
/// binary: actiondTests' MigrateCheckTests.)
@Suite("Schema drift", .timeLimit(.minutes(2)))
struct SchemaDriftTests {
    @Test func aFunctionChangedByHandIsReportedByReadinessAndRestoredByMigrate() async throws {
        try await TestDatabase.with { db in
            let migrator = Migrator(client: db.client, logger: db.logger)
            #expect(try await migrator.drift().isEmpty, "a database as migrate left it")
            try await db.client.withConnection { connection in
                try await connection.query("SET ROLE actiond_owner", logger: db.logger).drain()
                try await connection.query(PostgresQuery(unsafeSQL: HandMadeDefinition.queueDepth), logger: db.logger).drain()
                try await connection.query("CREATE FUNCTION actiond.made_by_hand() RETURNS int LANGUAGE sql AS $$ SELECT 1 $$", logger: db.logger).drain()
                try await connection.query("RESET ROLE", logger: db.logger).drain()
            }
            #expect(try await migrator.drift() == ["function actiond.made_by_hand() (added)", "function actiond.queue_depth() (changed)"])

            let readiness = Readiness(client: db.client, handlers: .builtIn, health: WorkerHealth(), interval: .milliseconds(100), logger: db.logger)
            let running = Task { await readiness.run() }
            defer { running.cancel() }
            var problem: String?
            let reported = try await eventually(20) {
                problem = readiness.problem()
                return problem?.hasPrefix("schema drift: function actiond.made_by_hand() (added) and 1 more differs") == true
            }
            #expect(reported, "\(String(describing: problem))")
            running.cancel()

            let report = try await migrator.migrate()
            #expect(report.restored == ["function actiond.made_by_hand() (added)", "function actiond.queue_depth() (changed)"])
            #expect(report.objects > 0, "this build's definitions applied again")
            #expect(try await migrator.drift().isEmpty)
            let depth = try await db.scalar("SELECT prosrc FROM pg_proc WHERE oid = 'actiond.queue_depth()'::regprocedure", as: String.self)
            #expect(!depth.contains("made by hand"), "the hand-made body is gone")
            #expect(try await db.scalar("SELECT count(*) FROM pg_proc WHERE proname = 'made_by_hand'", as: Int.self) == 0)

            let again = Readiness(client: db.client, handlers: .builtIn, health: WorkerHealth(), interval: .milliseconds(100), logger: db.logger)
            let rerun = Task { await again.run() }
            defer { rerun.cancel() }
            #expect(try await eventually(20) { again.problem() == nil }, "\(String(describing: again.problem()))")
            #expect(try await migrator.migrate().restored.isEmpty, "nothing drifted since")
        }
    }
}

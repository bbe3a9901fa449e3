@testable import ActiondPostgres
import ActiondTestSupport
import PostgresNIO
import Testing

@Suite("Migrations")
struct MigratorTests {
    @Test func aFreshDatabaseGetsEveryMigrationAndTheDefaultCategories() async throws {
        try await TestDatabase.with(migrated: false) { db in
            let report = try await Migrator(client: db.client, logger: db.logger).migrate()
            #expect(report.applied == Migration.all.map(\.name))
            #expect(report.loadedDefaultCategories == 1)
            let recorded = try await db.scalar("SELECT count(*) FROM actiond.schema_migrations", as: Int.self)
            #expect(recorded == Migration.all.count)
            let categories = try await db.scalar("SELECT string_agg(category, ',' ORDER BY category) FROM actiond.current_categories", as: String.self)
            #expect(categories == "GENERAL,MEETING_INVITATION,MESSAGE,TIMER_EXPIRED")
        }
    }

    @Test func aSecondRunIsANoOp() async throws {
        try await TestDatabase.with(migrated: false) { db in
            _ = try await Migrator(client: db.client, logger: db.logger).migrate()
            let second = try await Migrator(client: db.client, logger: db.logger).migrate()
            #expect(second.applied.isEmpty)
            #expect(second.alreadyApplied == Migration.all.map(\.name))
            #expect(second.loadedDefaultCategories == nil)
            #expect(try await db.scalar("SELECT count(*) FROM actiond.category_versions", as: Int.self) == 1)
        }
    }

    @Test func runsAtOnceAreSafe() async throws {
        try await TestDatabase.with(migrated: false) { db in
            let reports = try await withThrowingTaskGroup(of: Migrator.Report.self) { group in
                for _ in 0..<4 {
                    group.addTask {
                        // Each on its own pool, like separate processes.
                        try await PostgresClient.withClient(db.url, maximumConnections: 1, logger: db.logger) { client in
                            try await Migrator(client: client, logger: db.logger).migrate()
                        }
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(reports.flatMap(\.applied).sorted() == Migration.all.map(\.name), "each file applied exactly once in all")
            #expect(reports.compactMap(\.loadedDefaultCategories) == [1])
            #expect(try await db.scalar("SELECT count(*) FROM actiond.category_versions", as: Int.self) == 1)
        }
    }

    @Test func aChangedAppliedFileIsAClearError() async throws {
        try await TestDatabase.with { db in
            var changed = Migration.all
            changed[0].sql += "\n-- edited after it was applied\n"
            let migrator = Migrator(client: db.client, logger: db.logger, migrations: changed)
            await #expect { try await migrator.migrate() } throws: { error in
                let error = try #require(error as? MigrationError)
                return error.code == .checksumMismatch && error.migration == changed[0].name
                    && error.description.contains("must not change")
            }
        }
    }

    @Test func aMigrationThisBuildDoesNotKnowIsAClearError() async throws {
        try await TestDatabase.with { db in
            try await db.client.query("INSERT INTO actiond.schema_migrations VALUES (999, '999_future.sql', 'x')", logger: db.logger).drain()
            await #expect { try await Migrator(client: db.client, logger: db.logger).migrate() } throws: { error in
                (error as? MigrationError)?.code == .unknownMigration
            }
        }
    }

    @Test func aFailingMigrationLeavesNothingOfItself() async throws {
        try await TestDatabase.with(migrated: false) { db in
            let broken = Migration.all + [Migration(version: Migration.all.count + 1, name: "999_broken.sql",
                                                    sql: "create table actiond.half_done (a int); select 1/0;")]
            await #expect(throws: MigrationError.self) {
                try await Migrator(client: db.client, logger: db.logger, migrations: broken).migrate()
            }
            let halfDoneIsAbsent = try await db.scalar("SELECT to_regclass('actiond.half_done') IS NULL", as: Bool.self)
            let recorded = try await db.scalar("SELECT count(*) FROM actiond.schema_migrations", as: Int.self)
            #expect(halfDoneIsAbsent)
            #expect(recorded == Migration.all.count)
        }
    }

    @Test func aChangedFunctionFileIsAppliedAgainAndARemovedOneLeavesNothing() async throws {
        try await TestDatabase.with { db in
            #expect(try await Migrator(client: db.client, logger: db.logger).migrate().objects == 0, "all current")
            var changed = SchemaObject.all
            let index = try #require(changed.firstIndex { $0.path == "functions/latency_bucket_ms.sql" })
            changed[index].sql = "create function actiond.latency_bucket_ms(bucket integer) returns double precision\nlanguage sql immutable as $$ select 42.0::double precision $$;"
            changed.append(SchemaObject(kind: .functions, name: "probe_extra", sql: "create function actiond.probe_extra() returns integer language sql as $$ select 7 $$;"))
            let report = try await Migrator(client: db.client, logger: db.logger, objects: changed).migrate()
            #expect(report.objects == SchemaObject.installed(changed, distributed: false).count && report.applied.isEmpty)
            #expect(try await db.scalar("SELECT actiond.latency_bucket_ms(3)", as: Double.self) == 42)
            #expect(try await db.scalar("SELECT actiond.probe_extra()", as: Int.self) == 7)
            // The views that depended on dropped functions are back; no table has a trigger
            // (004_distributable_keys.sql: Citus refuses them).
            #expect(try await db.scalar("SELECT count(*) FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'actiond' AND NOT t.tgisinternal", as: Int.self) == 0)
            #expect(try await db.scalar("SELECT count(*) FROM actiond.current_categories", as: Int.self) == 4)

            let restored = try await Migrator(client: db.client, logger: db.logger).migrate()
            #expect(restored.objects == SchemaObject.installed(SchemaObject.all, distributed: false).count)
            #expect(try await db.scalar("SELECT actiond.latency_bucket_ms(0)", as: Double.self) == 0.1)
            #expect(try await db.scalar("SELECT to_regprocedure('actiond.probe_extra()') IS NULL", as: Bool.self), "a function without a file is gone")
        }
    }

    @Test func aDatabaseOfTheEarlierLayoutIsRefusedAndNothingChanges() async throws {
        try await TestDatabase.with(migrated: false) { db in
            try await db.client.query("CREATE SCHEMA actiond", logger: db.logger).drain()
            try await db.client.query("""
                CREATE TABLE actiond.schema_migrations (version integer PRIMARY KEY, name text NOT NULL, checksum text NOT NULL,
                                                        applied_at timestamptz NOT NULL DEFAULT now())
                """, logger: db.logger).drain()
            try await db.client.query("""
                INSERT INTO actiond.schema_migrations (version, name, checksum)
                VALUES (1, '001_event_log.sql', 'x'), (2, '002_category_registry.sql', 'y')
                """, logger: db.logger).drain()
            await #expect { try await Migrator(client: db.client, logger: db.logger).migrate() } throws: { error in
                let error = try #require(error as? MigrationError)
                return error.code == .earlierLayout && error.description.contains("earlier layout") && error.description.contains("Use a new database")
            }
            #expect(try await db.scalar("SELECT to_regclass('actiond.events') IS NULL", as: Bool.self))
            #expect(try await db.scalar("SELECT count(*) FROM actiond.schema_migrations", as: Int.self) == 2)
        }
    }
}

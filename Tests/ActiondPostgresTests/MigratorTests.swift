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
            changed[1].sql += "\n-- edited after it was applied\n"
            let migrator = Migrator(client: db.client, logger: db.logger, migrations: changed)
            await #expect { try await migrator.migrate() } throws: { error in
                let error = try #require(error as? MigrationError)
                return error.code == .checksumMismatch && error.migration == changed[1].name
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
}

import ActiondBuiltInHandlers
import ActiondDomain
@testable import ActiondPostgres
import ActiondTestSupport
import PostgresNIO
import Testing

/// A team's handler with a report view whose columns a test can change.
private struct CrateHandler: CategoryHandler {
    enum Event: HandlerEvent {
        case counted
        var name: String { "crate.counted" }
    }

    struct Report: Encodable, Sendable {
        var count: Int
        var label: String
    }

    var columns: [ReportColumn] = [ReportColumn("count", .integer)]
    var name = "crate"
    var description = "Each crate's count."
    var reportView: ReportView? {
        ReportView(name: "report_crates", description: description, idColumn: "crate_id", columns: columns)
    }

    func stateID(for notification: SentNotification) -> String? { notification["CRATE_ID"] }
    func respond(_ response: CheckedResponse, to state: Int?, shared: Never?) -> Decision<Event> { .applied(.counted) }
    func apply(_ event: Event, to state: Int?, key: StateKey) -> Int { (state ?? 0) + 1 }
    func report(_ state: Int) -> Report { Report(count: state, label: "n\(state)") }
}

@Suite("Handler report views")
struct HandlerReportViewTests {
    func columns(_ db: TestDatabase, _ view: String) async throws -> [String] {
        try await db.client.query("""
            SELECT a.attname::text || ':' || format_type(a.atttypid, a.atttypmod) FROM pg_attribute a
            WHERE a.attrelid = to_regclass('actiond.' || \(view)) AND a.attnum > 0 ORDER BY a.attnum
            """, logger: db.logger).collect().map { try $0.decode(String.self) }
    }

    @Test func migrateInstallsAViewPerHandlerAndRecreatesItWhenItsDeclarationChanges() async throws {
        try await TestDatabase.with { db in
            #expect(try await columns(db, "report_timers") == ["timer_id:text", "user_id:text", "state:text", "fires_at:timestamp with time zone", "snooze_count:integer"])
            let first = try await Migrator(client: db.client, logger: db.logger, handlers: try CategoryHandlers.withBuiltIn([CrateHandler()])).migrate()
            #expect(first.views == ["report_crates"] && first.applied.isEmpty)
            #expect(try await columns(db, "report_crates") == ["crate_id:text", "user_id:text", "count:integer"])
            #expect(try await db.scalar("SELECT obj_description('actiond.report_crates'::regclass, 'pg_class')", as: String.self) == "Each crate's count.")

            try await db.client.query("""
                INSERT INTO actiond.projections (kind, stream_id, user_id, state, last_position)
                VALUES ('crate', 'c1', 'ana', '{"report": {"count": 3, "label": "n3"}, "state": 3, "version": 1}', 1)
                """, logger: db.logger).drain()
            #expect(try await db.scalar("SELECT count FROM actiond.report_crates WHERE crate_id = 'c1'", as: Int.self) == 3)

            let again = try await Migrator(client: db.client, logger: db.logger, handlers: try CategoryHandlers.withBuiltIn([CrateHandler()])).migrate()
            #expect(again.views.isEmpty, "an unchanged declaration is left alone")

            let wider = CrateHandler(columns: [ReportColumn("count", .integer), ReportColumn("label", .text)])
            let changed = try await Migrator(client: db.client, logger: db.logger, handlers: try CategoryHandlers.withBuiltIn([wider])).migrate()
            #expect(changed.views == ["report_crates"])
            #expect(try await columns(db, "report_crates") == ["crate_id:text", "user_id:text", "count:integer", "label:text"])
            #expect(try await db.scalar("SELECT label FROM actiond.report_crates WHERE crate_id = 'c1'", as: String.self) == "n3")

            // A build without the handler leaves its view alone.
            _ = try await Migrator(client: db.client, logger: db.logger).migrate()
            #expect(try await columns(db, "report_crates").count == 4)

            // Dropped by hand: the next migrate puts it back.
            try await db.client.query("DROP VIEW actiond.report_crates", logger: db.logger).drain()
            let restored = try await Migrator(client: db.client, logger: db.logger, handlers: try CategoryHandlers.withBuiltIn([wider])).migrate()
            #expect(restored.views.contains("report_crates") && restored.restored == ["view actiond.report_crates (missing)"], "\(restored)")
            #expect(try await columns(db, "report_crates").count == 4)
        }
    }

    @Test func anotherHandlersViewNameIsRefusedAndTextIsStoredExactly() async throws {
        try await TestDatabase.with { db in
            let tricky = #"It's a \' test; drop table actiond.events; --"#
            _ = try await Migrator(client: db.client, logger: db.logger, handlers: try CategoryHandlers.withBuiltIn([CrateHandler(description: tricky)])).migrate()
            #expect(try await db.scalar("SELECT obj_description('actiond.report_crates'::regclass, 'pg_class')", as: String.self) == tricky)
            #expect(try await db.scalar("SELECT to_regclass('actiond.events') IS NOT NULL", as: Bool.self))
            let other = Migrator(client: db.client, logger: db.logger, handlers: try CategoryHandlers.withBuiltIn([CrateHandler(name: "pallet")]))
            await #expect { try await other.migrate() } throws: { error in
                (error as? MigrationError)?.description.contains("is handler crate's report view") == true
            }
            #expect(try await db.scalar("SELECT handler FROM actiond.handler_views WHERE name = 'report_crates'", as: String.self) == "crate")
        }
    }

    @Test func aViewNameTakenByAnotherRelationIsRefusedAndNothingChanges() async throws {
        try await TestDatabase.with { db in
            try await db.client.query("CREATE TABLE actiond.report_crates (keep integer)", logger: db.logger).drain()
            let migrator = Migrator(client: db.client, logger: db.logger, handlers: try CategoryHandlers.withBuiltIn([CrateHandler()]))
            await #expect { try await migrator.migrate() } throws: { error in
                (error as? MigrationError)?.description.contains("was not made by a handler") == true
            }
            #expect(try await columns(db, "report_crates") == ["keep:integer"])
            #expect(try await db.scalar("SELECT count(*) FROM actiond.handler_views WHERE name = 'report_crates'", as: Int.self) == 0)
        }
    }

    @Test func theGeneratedDefinitionJoinsSharedStateWithItsDefault() throws {
        let handler = MeetingInvitationHandler()
        let sql = HandlerReportViews.definition(handler.reportView!, stateKind: handler.stateKind, sharedKind: handler.sharedKind)
        #expect(sql.contains("coalesce((h.state -> 'report' ->> 'status')::text, E'scheduled'::text) as meeting_status"))
        #expect(sql.contains("with h as materialized (\n    select stream_id, state from actiond.projections where kind = 'meeting'\n)"))
        #expect(sql.contains("left join h on h.stream_id = s.stream_id"))
        #expect(HandlerReportViews.literal(#"it's \' x"#) == #"E'it''s \\'' x'"#)
    }
}

import ActiondPostgres
import ActiondTestSupport
import PostgresNIO
import Testing

extension CitusTests {
    /// A login in actiond_reader reads every report view on the cluster, built-in and the
    /// handlers', through the binary too, and is refused every table (the views' own
    /// definitions included).
    static func checkReader(_ citus: DatabaseURL, client: PostgresClient, logger: Logger) async throws {
        try await client.query("DROP ROLE IF EXISTS citus_test_reader", logger: logger).drain()
        try await client.query("CREATE ROLE citus_test_reader LOGIN IN ROLE actiond_reader", logger: logger).drain()
        let views = try await client.query("""
            SELECT c.relname::text FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
            WHERE n.nspname = 'actiond' AND c.relkind = 'v' AND c.relname LIKE 'report\\_%' ORDER BY 1
            """, logger: logger).collect().map { try $0.decode(String.self) }
        #expect(views.count >= 10 && views.contains("report_invitations") && views.contains("report_trail"), "\(views)")
        var reader = citus
        reader.username = "citus_test_reader"
        try await PostgresClient.withClient(reader, maximumConnections: 1, logger: logger) { login in
            for view in views {
                do {
                    let rows = try await login.query(PostgresQuery(unsafeSQL: "SELECT count(*) FROM actiond.\(view)"), logger: logger)
                        .collect().first?.decode(Int.self) ?? -1
                    #expect(rows >= 0)
                } catch {
                    Issue.record("a reader could not read \(view): \(String(reflecting: error))")
                }
            }
            let trail = try await login.query("SELECT count(*)::int FROM actiond.report_trail WHERE user_id = 'citus-u3'", logger: logger)
                .collect().first?.decode(Int.self) ?? 0
            #expect(trail > 0, "the trail filters by user for a reader too")
            for table in ["events", "outcomes", "stash", "projections", "domain_events", "event_ids", "outcome_counts", "rows_of_report_trail"] {
                do {
                    _ = try await login.query(PostgresQuery(unsafeSQL: "SELECT count(*) FROM actiond.\(table)"), logger: logger).collect()
                    Issue.record("a reader read actiond.\(table)")
                } catch let error as PSQLError {
                    #expect(error.sqlState == .insufficientPrivilege, "actiond.\(table): \(String(reflecting: error))")
                }
            }
        }
        // A later migrate that applies the functions and views again (a changed file) wraps
        // them again; the drop of a function whose view went with another drop is skipped.
        try await client.query("UPDATE actiond.schema_objects SET checksum = 'changed' WHERE path = 'functions/latency_bucket_ms.sql'", logger: logger).drain()
        // And a handler's view changed alone (its install makes the plain view again).
        try await client.query("UPDATE actiond.handler_views SET checksum = 'changed' WHERE name = 'report_timers'", logger: logger).drain()
        let remigrated = try await ActiondProcess.run(["migrate"], database: citus)
        #expect(remigrated.status == 0, "\(remigrated.standardError)")
        #expect(remigrated.standardOutput.contains("functions, views and grants"), "\(remigrated.standardOutput)")
        let report = try await ActiondProcess.run(["report", "invitations", "--format", "csv"], database: reader)
        #expect(report.status == 0 && report.standardOutput.split(whereSeparator: \.isNewline).count == 401, "\(report.standardError)")
        let latency = try await ActiondProcess.run(["report", "latency"], database: reader)
        #expect(latency.status == 0, "\(latency.standardError)")
        let timers = try await ActiondProcess.run(["report", "timers"], database: reader)
        #expect(timers.status == 0, "\(timers.standardError)")
    }
}

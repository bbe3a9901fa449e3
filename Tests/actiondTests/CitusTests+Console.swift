import ActiondPostgres
import ActiondTestSupport
import PostgresNIO
import Testing

extension CitusTests {
    /// The web console's functions answer on the cluster: every reader function as a reader
    /// login (one user's trail and person read by that user's key), every action as an
    /// operator login, each action audited once. One event of citus-u3 is made a dead letter
    /// and discarded by the operator (final, so the prune below still drops its partition).
    static func checkConsole(_ citus: DatabaseURL, client: PostgresClient, logger: Logger) async throws {
        func scalar(_ sql: String) async throws -> Int { try await Self.integer(sql, client: client, logger: logger) }
        let user = "citus-u3"
        let dead = try await scalar("SELECT max(position)::int FROM actiond.outcomes WHERE user_id = '\(user)'")
        try await client.query(PostgresQuery(unsafeSQL: """
            UPDATE actiond.outcomes SET outcome = 'dead', reason = NULL, last_error = 'citus console', category = NULL
            WHERE user_id = '\(user)' AND position = \(dead)
            """), logger: logger).drain()
        let events = try await scalar("SELECT count(*)::int FROM actiond.events WHERE user_id = '\(user)'")
        let request = try await client.query(PostgresQuery(unsafeSQL: """
            SELECT data ->> 'request_id' FROM actiond.events WHERE user_id = '\(user)' AND data ? 'request_id' ORDER BY position LIMIT 1
            """), logger: logger).collect().first?.decode(String.self) ?? "none"
        let views = try await client.query("SELECT name FROM actiond.handler_views ORDER BY name", logger: logger)
            .collect().map { try $0.decode(String.self) }
        for (role, group) in [("citus_test_console_reader", "actiond_reader"), ("citus_test_operator", "actiond_operator")] {
            try await client.query(PostgresQuery(unsafeSQL: "DROP ROLE IF EXISTS \(role)"), logger: logger).drain()
            try await client.query(PostgresQuery(unsafeSQL: "CREATE ROLE \(role) LOGIN IN ROLE \(group)"), logger: logger).drain()
        }
        var reader = citus
        reader.username = "citus_test_console_reader"
        var operatorLogin = citus
        operatorLogin.username = "citus_test_operator"

        var reads: [(String, (Int) -> Bool)] = [
            ("SELECT count(*)::int FROM actiond.console_throughput(1440)", { $0 == 1440 }),
            ("SELECT count(*)::int FROM actiond.console_outcomes(NULL, NULL)", { $0 > 0 }),
            ("SELECT count(*)::int FROM actiond.console_outcomes(NULL, 'applied')", { $0 > 0 }),
            ("SELECT position::int FROM actiond.console_dead_letters(NULL, NULL, 'CITUS', NULL, NULL, NULL)", { $0 == dead }),
            ("SELECT actiond.console_dead_letter_count(NULL, NULL, NULL, NULL)::int", { $0 == 1 }),
            ("SELECT (actiond.console_dead_letter_positions(NULL, NULL, NULL, NULL, NULL))[1]::int", { $0 == dead }),
            ("SELECT count(*)::int FROM actiond.console_dead_letter(\(dead))", { $0 == 1 }),
            ("SELECT count(*)::int FROM actiond.console_trail('\(user)', NULL, NULL, 500)", { $0 == min(events, 500) }),
            ("SELECT count(*)::int FROM actiond.console_trail('\(user)', NULL, \(dead), 2)", { $0 == min(events - 1, 2) }),
            ("SELECT count(*)::int FROM actiond.console_trail(NULL, '\(request)', NULL, NULL)", { $0 > 0 }),
            ("SELECT (events + 1000 * dead)::int FROM actiond.console_person('\(user)')", { $0 == events + 1000 }),
            ("SELECT count(*)::int FROM actiond.console_pauses()", { $0 == 0 }),
            ("SELECT actiond.console_live_workers()", { $0 == 0 }),
            ("SELECT count(*)::int FROM actiond.console_categories()", { $0 > 4 }),
        ]
        for view in views {
            let call = "SELECT count(*)::int FROM actiond.console_handler_rows('\(view)', '\(user)', NULL)"
            reads.append((call, { (rows: Int) -> Bool in rows >= 0 }))
        }
        try await PostgresClient.withClient(reader, maximumConnections: 1, logger: logger) { login in
            for (sql, expected) in reads {
                do {
                    let value = try await login.query(PostgresQuery(unsafeSQL: sql), logger: logger).collect().first?.decode(Int.self) ?? -1
                    #expect(expected(value), "\(sql): \(value)")
                } catch {
                    Issue.record("a reader could not call \(sql): \(String(reflecting: error))")
                }
            }
        }
        #expect(try await scalar("SELECT count(*)::int FROM actiond.console_handler_rows('report_timers', '\(user)', NULL)")
                == scalar("SELECT count(*)::int FROM actiond.rows_of_report_timers WHERE user_id = '\(user)'"))

        let actions: [(String, String)] = [
            ("SELECT actiond.console_pause('citus', '\(user)')::text", "true"),
            ("SELECT actiond.console_resume('citus', '\(user)')::text", "1"),
            ("SELECT actiond.console_retry('citus', '{}', 'none selected')::text", "0"),
            ("SELECT actiond.console_discard('citus', array[\(dead)]::bigint[], 'position \(dead)')::text", "1"),
        ]
        try await PostgresClient.withClient(operatorLogin, maximumConnections: 1, logger: logger) { login in
            for (sql, expected) in actions {
                do {
                    let value = try await login.query(PostgresQuery(unsafeSQL: sql), logger: logger).collect().first?.decode(String.self)
                    #expect(value == expected, "\(sql): \(value ?? "no row")")
                } catch {
                    Issue.record("an operator could not call \(sql): \(String(reflecting: error))")
                }
            }
            do {
                _ = try await login.query("SELECT count(*) FROM actiond.console_audit(NULL, NULL)", logger: logger).collect()
                Issue.record("an operator read the audit")
            } catch let error as PSQLError {
                #expect(error.sqlState == .insufficientPrivilege, "\(String(reflecting: error))")
            }
        }
        #expect(try await scalar("SELECT count(*)::int FROM actiond.outcomes WHERE position = \(dead) AND discarded_at IS NOT NULL") == 1)
        #expect(try await scalar("SELECT count(*)::int FROM actiond.pauses") == 0)
        try await PostgresClient.withClient(reader, maximumConnections: 1, logger: logger) { login in
            let audit = try await login.query("SELECT action || ':' || events FROM actiond.console_audit(NULL, NULL)", logger: logger)
                .collect().map { try $0.decode(String.self) }
            #expect(audit == ["discard:1", "retry:0", "resume:1", "pause:1"])
            let status = try await login.query(PostgresQuery(unsafeSQL: "SELECT status FROM actiond.console_trail('\(user)', NULL, \(dead + 1), 1)"), logger: logger)
                .collect().map { try $0.decode(String.self) }
            #expect(status == ["discarded"])
        }
    }
}

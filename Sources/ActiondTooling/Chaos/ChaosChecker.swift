import ActiondBuiltInHandlers
import ActiondDomain
import ActiondPostgres
import ActiondSealing
import Foundation
import Logging
import PostgresNIO

/// One check of a chaos soak: what it holds to, how many rows break it, and the first few.
package struct ChaosCheck: Codable, Sendable, Equatable {
    package var name: String
    package var rule: String
    package var failures: Int
    package var examples: [String]
    package var passed: Bool { failures == 0 }
}

/// The checks at the end of a chaos soak: the producers' ledger (what they were told) against
/// the database (what it holds), and the database against its own rules. Also run on its own
/// (`actiond bench chaos-check`) on a database and a ledger a run left behind.
package enum ChaosChecker {
    /// Every check, in the order printed. The ledger is loaded into a temporary table of the
    /// checking session; `keys` open the protected text the rebuild folds.
    package static func check(client: PostgresClient, ledger: [ChaosLedger.Entry], keys: KeyRing,
                              handlers: CategoryHandlers = .builtIn, logger: Logger) async throws -> [ChaosCheck] {
        var checks = try await client.withConnection { connection in
            try await load(ledger, on: connection, logger: logger)
            var checks: [ChaosCheck] = []
            for (name, rule, query) in queries {
                let rows = try await connection.query(PostgresQuery(unsafeSQL: """
                    SELECT count(*) OVER ()::bigint, example FROM (\(query)) q(example) LIMIT 5
                    """), logger: logger).collect()
                let decoded = try rows.map { try $0.decode((Int, String).self) }
                checks.append(ChaosCheck(name: name, rule: rule, failures: decoded.first?.0 ?? 0, examples: decoded.map(\.1)))
            }
            try await connection.query("DROP TABLE chaos_ledger", logger: logger).drain()
            return checks
        }
        // The projections the workers built live, against a fold of the log (actiond rebuild).
        let rebuilt = try await ProjectionRebuild(client: client, logger: logger, handlers: handlers, keys: keys).run()
        let differing = rebuilt.removed + rebuilt.written
        checks.append(ChaosCheck(
            name: "rebuild", rule: "the projections equal actiond rebuild's fold of the log", failures: differing,
            examples: differing == 0 ? [] : ["\(rebuilt.removed) live rows differed or were obsolete, \(rebuilt.written) rebuilt rows written"]))
        return checks
    }

    private static func load(_ ledger: [ChaosLedger.Entry], on connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query("""
            CREATE TEMPORARY TABLE chaos_ledger (user_id text NOT NULL, id text NOT NULL, position bigint NOT NULL,
                                                 answer text NOT NULL, in_doubt boolean NOT NULL, resubmit boolean NOT NULL)
            """, logger: logger).drain()
        for offset in stride(from: 0, to: ledger.count, by: 10_000) {
            let part = ledger[offset..<min(offset + 10_000, ledger.count)]
            try await connection.query("""
                INSERT INTO chaos_ledger
                SELECT * FROM unnest(\(part.map(\.user))::text[], \(part.map(\.id))::text[], \(part.map(\.position))::bigint[],
                                     \(part.map(\.answer))::text[], \(part.map(\.inDoubt))::boolean[], \(part.map(\.resubmit))::boolean[])
                """, logger: logger).drain()
        }
        try await connection.query("CREATE INDEX ON chaos_ledger (user_id, id)", logger: logger).drain()
        try await connection.query("ANALYZE chaos_ledger", logger: logger).drain()
    }

    /// Name, rule, and a query giving one line of text per row that breaks the rule.
    /// `chaos_ledger` rows: every submit (accepted, duplicate; refused; or unanswered: given
    /// up, in doubt), and resubmits.
    static let queries: [(String, String, String)] = [
        ("answers", "every submit was answered: accepted, or a duplicate of itself only when an earlier attempt may have committed", """
            SELECT l.user_id || '/' || l.id || ': ' || CASE l.answer WHEN 'duplicate' THEN 'a duplicate, though no earlier attempt could have committed'
                                                              ELSE l.answer END
            FROM chaos_ledger l
            WHERE NOT l.resubmit AND (l.answer IN ('refused', 'unanswered') OR (l.answer = 'duplicate' AND NOT l.in_doubt))
            """),
        ("lost", "every acknowledged submit is in the log, at the position its answer gave", """
            SELECT l.user_id || '/' || l.id || ' acknowledged at position ' || l.position || ' is not in the log there'
            FROM chaos_ledger l
            WHERE NOT l.resubmit AND l.answer IN ('accepted', 'duplicate')
              AND NOT EXISTS (SELECT 1 FROM actiond.events e WHERE e.user_id = l.user_id AND e.position = l.position AND e.id = l.id)
            """),
        ("undecided", "every acknowledged submit has an outcome", """
            SELECT l.user_id || '/' || l.id || ' at position ' || l.position || ' has no outcome'
            FROM chaos_ledger l JOIN actiond.events e ON e.user_id = l.user_id AND e.position = l.position AND e.id = l.id
            WHERE NOT l.resubmit AND NOT EXISTS (SELECT 1 FROM actiond.outcomes o WHERE o.user_id = l.user_id AND o.position = l.position)
            """),
        ("doubled", "no submit is in the log, or decided, more than once", """
            SELECT e.user_id || '/' || e.id || ' is in the log ' || count(*) || ' times, at positions '
                   || string_agg(e.position::text, ', ' ORDER BY e.position) || ' (outcomes: '
                   || string_agg(coalesce(o.outcome, 'none'), ', ' ORDER BY e.position) || ')'
            FROM actiond.events e LEFT JOIN actiond.outcomes o ON o.user_id = e.user_id AND o.position = e.position
            GROUP BY e.user_id, e.id HAVING count(*) > 1
            """),
        ("unacknowledged", "no event is in the log that no producer was told was acknowledged (or gave up on, in doubt)", """
            SELECT e.user_id || '/' || e.id || ' at position ' || e.position || ' was never submitted'
            FROM actiond.events e
            WHERE NOT EXISTS (SELECT 1 FROM chaos_ledger l WHERE l.user_id = e.user_id AND l.id = e.id AND NOT l.resubmit
                                                            AND l.answer IN ('accepted', 'duplicate', 'unanswered'))
            """),
        ("applied_once", "each user's progress counts every event of theirs in the log exactly once", """
            SELECT coalesce(p.user_id, e.user_id) || ': ' || coalesce(p.processed_events, 0) || ' events applied, '
                   || coalesce(e.events, 0) || ' in the log'
            FROM actiond.user_progress p
            FULL JOIN (SELECT user_id, count(*) AS events FROM actiond.events GROUP BY user_id) e ON e.user_id = p.user_id
            WHERE coalesce(p.processed_events, 0) <> coalesce(e.events, 0)
            """),
        ("effects_once", "no input event wrote the same domain event twice", """
            SELECT 'position ' || position || ' wrote ' || type || ' on ' || stream_kind || ' ' || stream_id || ' ' || count(*) || ' times'
            FROM actiond.domain_events
            GROUP BY position, stream_kind, stream_id, stream_user, type HAVING count(*) > 1
            """),
        ("order", "each user's events are decided in submission order", """
            SELECT user_id || ': position ' || position || ' decided at ' || decided_at || ', before position '
                   || previous_position || ' (decided at ' || previous || ')'
            FROM (SELECT user_id, position, decided_at,
                         lag(decided_at) OVER w AS previous, lag(position) OVER w AS previous_position
                  FROM actiond.outcomes WINDOW w AS (PARTITION BY user_id ORDER BY position)) d
            WHERE decided_at < previous
            """),
        ("device_time", "a superseded response is older, by device time, than a response of its user submitted before it", """
            SELECT user_id || '/' || id || ' superseded, though no earlier response of its user is newer'
            FROM (SELECT e.user_id, e.id, e.occurred_at, o.outcome,
                         max(e.occurred_at) OVER (PARTITION BY e.user_id ORDER BY e.position
                                                  ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS newest_before
                  FROM actiond.events e JOIN actiond.outcomes o ON o.user_id = e.user_id AND o.position = e.position
                  WHERE e.type = 'notification.response') r
            WHERE outcome = 'superseded' AND (newest_before IS NULL OR newest_before <= occurred_at)
            """),
        ("dead", "no event is dead", """
            SELECT user_id || ' position ' || position || ' is dead after ' || attempts || ' attempts'
            FROM actiond.outcomes WHERE outcome = 'dead'
            """),
        ("stash", "every stash is integrated and nothing is held", """
            SELECT user_id || ': ' || count(*) || ' changes still in the stash' FROM actiond.stash GROUP BY user_id
            UNION ALL
            SELECT user_id || ' position ' || position || ' is still stashed' FROM actiond.outcomes WHERE outcome = 'stashed'
            UNION ALL
            SELECT user_id || ' position ' || position || ' is still held' FROM actiond.held
            """),
        ("counts", "the outcome counters equal the outcomes", """
            SELECT coalesce(c.outcome, o.outcome) || ': counted ' || coalesce(c.events, 0) || ', recorded ' || coalesce(o.events, 0)
            FROM (SELECT outcome, sum(events)::bigint AS events FROM actiond.outcome_counts GROUP BY outcome) c
            FULL JOIN (SELECT outcome, count(*) AS events FROM actiond.outcomes GROUP BY outcome) o ON o.outcome = c.outcome
            WHERE coalesce(c.events, 0) <> coalesce(o.events, 0)
            """),
        ("resubmits", "a resubmitted event comes back as a duplicate at its first position", """
            SELECT r.user_id || '/' || r.id || ' resubmitted: answered ' || r.answer || ' at ' || r.position
                   || ', first acknowledged at ' || l.position
            FROM chaos_ledger r JOIN chaos_ledger l ON l.user_id = r.user_id AND l.id = r.id AND NOT l.resubmit
            WHERE r.resubmit AND r.answer <> 'unanswered' AND (r.answer <> 'duplicate' OR r.position <> l.position)
            """),
    ]
}

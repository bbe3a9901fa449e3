import ActiondRuntime
import ActiondDomain
import ActiondPostgres
import Foundation
import Logging
import PostgresNIO

/// `actiond migrate`'s look for protected text a worker took that is still in clear (stored
/// before sealing existed, or by the benchmark's unsealed worker): every table and field
/// `actiond keys reseal` seals. The input log (dead letters and held responses are rows of
/// it): a response's text and a protecting category's alert (the alert itself when it is
/// not an object, else its title, subtitle, body and localized arguments), whatever their
/// JSON type; the stash; the domain events, read as reseal reads them (a bare string where a
/// handler's event holds `ProtectedText`, or text stored unsealed). It reads no key and opens
/// nothing: clear text is told by its form alone.
package struct ClearTextCheck: Sendable {
    /// What the look found.
    package struct Finding: Sendable, Equatable {
        /// The tables holding clear text, in the order reseal passes them: events, stash, domain_events.
        package var tables: [String] = []
        /// Whether every table was read within the bound (false: a table not named may hold some too).
        package var complete = true
    }

    let client: PostgresClient
    let router: EventRouter
    let bound: Duration
    let pageSize: Int
    let logger: Logger

    package init(client: PostgresClient, router: EventRouter, bound: Duration = .seconds(5), pageSize: Int = 1000, logger: Logger) {
        self.client = client
        self.router = router
        self.bound = bound
        self.pageSize = pageSize
        self.logger = logger
    }

    package func run() async throws -> Finding {
        let deadline = ContinuousClock.now + bound
        var finding = Finding()
        let registry = try await client.withConnection { connection in
            try await CategoryStore.currentVersion(on: connection, logger: logger)
        }
        // Each table's look: true when it holds clear text, nil when it could not tell in time.
        func record(_ table: String, _ found: Bool?) {
            switch found {
            case true?: finding.tables.append(table)
            case false?: break
            case nil: finding.complete = false
            }
        }
        record("events", try await log(registry, deadline))
        record("stash", try await stash(registry, deadline))
        record("domain_events", try await domainEvents(registry, deadline))
        return finding
    }

    /// Whether `data` of `type` holds a protected field in clear (sealed forms do not count).
    private func holdsClearText(_ data: String, type: EventType, category: String?, registry: CategoryRegistry?) -> Bool {
        let protects = category.map { router.protectsAlert(category: $0, in: registry) } ?? false
        return ProtectedFields.holdsTextNotAtRest(data, type: type, protectsAlert: protects, isAtRest: { _ in true })
    }

    /// The log, in one statement: the rows a worker took (with an outcome, or held), each
    /// table joined by the rows' key, with no subquery of its own (the shape Citus plans on
    /// co-located tables).
    private func log(_ registry: CategoryRegistry?, _ deadline: ContinuousClock.Instant) async throws -> Bool? {
        let protecting = (registry?.categories ?? []).map(\.identifier).filter { router.protectsAlert(category: $0, in: registry) }
        let fields = ProtectedFields.alertFields + ProtectedFields.alertArgumentFields
        // A response's text, or a protecting category's alert (when not an object) or one of
        // its text fields, present with any value but null, in a row of `events` that `taken`
        // holds too.
        @Sendable func look(_ taken: String) -> PostgresQuery {
            """
            SELECT exists (
                SELECT 1 FROM actiond.events e JOIN \(unescaped: taken) t USING (user_id, position)
                WHERE (e.type = 'notification.response' AND coalesce(e.data -> 'text', 'null') <> 'null')
                   OR (e.type = 'notification.sent' AND e.data #>> '{payload,aps,category}' = ANY(\(protecting))
                       AND (jsonb_typeof(e.data #> '{payload,aps,alert}') NOT IN ('object', 'null')
                            OR (jsonb_typeof(e.data #> '{payload,aps,alert}') = 'object'
                                AND jsonb_strip_nulls(e.data #> '{payload,aps,alert}') ?| \(fields)))))
            """
        }
        return try await bounded(deadline) { connection in
            for taken in ["actiond.outcomes", "actiond.held"] {
                if try await connection.query(look(taken), logger: logger).collect().first?.decode(Bool.self) == true { return true }
            }
            return false
        }
    }

    /// The stash, page by page, each payload read as reseal reads it.
    private func stash(_ registry: CategoryRegistry?, _ deadline: ContinuousClock.Instant) async throws -> Bool? {
        var after = (user: "", position: Int64.min)
        while true {
            let from = after
            let page = try await bounded(deadline) { connection in
                try await connection.query("""
                    SELECT s.user_id, s.position, s.payload_version, convert_from(s.payload, 'UTF8')
                    FROM actiond.stash s
                    WHERE (s.user_id, s.position) > (\(from.user), \(from.position))
                    ORDER BY s.user_id, s.position
                    LIMIT \(pageSize)
                    """, logger: logger).collect()
            }
            guard let page else { return nil }
            guard !page.isEmpty else { return false }
            for row in page {
                let (user, position, version, payload) = try row.decode((String, Int64, Int, String).self)
                after = (user, position)
                guard let event = try? StashPayload.decode(payload, version: version) else { continue }
                var category: String?
                if case .sent(_, let notification)? = event.input { category = notification["aps"]?["category"]?.stringValue }
                if holdsClearText(event.data, type: event.type, category: category, registry: registry) { return true }
            }
            guard ContinuousClock.now < deadline else { return nil }
        }
    }

    /// The domain events of users' streams, page by page, each decoded as reseal decodes it.
    private func domainEvents(_ registry: CategoryRegistry?, _ deadline: ContinuousClock.Instant) async throws -> Bool? {
        var after = Int64.min
        while true {
            let from = after
            let page = try await bounded(deadline) { connection in
                try await connection.query("""
                    SELECT seq, position, stream_kind, stream_id, stream_user, schema_version, data::text
                    FROM actiond.domain_events
                    WHERE seq > \(from) AND stream_user <> ''
                    ORDER BY seq
                    LIMIT \(pageSize)
                    """, logger: logger).collect()
            }
            guard let page else { return nil }
            guard !page.isEmpty else { return false }
            for row in page {
                let (seq, position, kind, id, user, version, data) = try row.decode((Int64, Int64, String, String, String, Int, String).self)
                after = seq
                let stream = StreamKey(kind, id, user: user)
                let seen = ClearTextSeen()
                let scope = TextSealing(sealer: FormOnly(), user: user, row: SealBinding.domainRow(position: position, stream: stream), clearSeen: seen)
                _ = try? TextSealing.$current.withValue(scope) { try router.catalog.decodeEvent(data, version: version, stream: stream) }
                if seen.wasSeen { return true }
            }
            guard ContinuousClock.now < deadline else { return nil }
        }
    }

    /// `body` in a transaction whose statements stop at the deadline; nil when they did.
    private func bounded<Result: Sendable>(_ deadline: ContinuousClock.Instant,
                                           _ body: @escaping @Sendable (PostgresConnection) async throws -> Result) async throws -> Result? {
        let left = ContinuousClock.now.duration(to: deadline)
        guard left > .zero else { return nil }
        let milliseconds = max(1, Int(left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000))
        do {
            return try await client.withConnection { connection in
                try await connection.transaction(logger: logger) { connection in
                    try await connection.query("SELECT set_config('statement_timeout', \(String(milliseconds)), true)", logger: logger).drain()
                    return try await body(connection)
                }
            }
        } catch let error as PSQLError where error.sqlState == .queryCanceled {
            return nil
        }
    }
}

/// Reads sealed text as forgotten and seals nothing: enough to tell by its form whether a text
/// was stored in clear (`ClearTextSeen`), with no key.
private struct FormOnly: TextSealer {
    func seal(_ text: String, binding: SealBinding) throws -> String { throw SealedTextUnreadable(reason: "a look seals nothing") }
    func open(_ sealed: String, binding: SealBinding) throws -> ProtectedText { .forgotten }
}

import ActiondDomain
import Foundation
import Logging
import PostgresNIO

/// The queue side of the schema (Schema/functions: claim, complete, retry_dead, discard_dead): claiming batches, completing them,
/// dead letters, and the figures workers report.
package enum WorkQueue {
    /// A finished event's outcome.
    package struct Finished: Sendable {
        package var event: LoggedEvent
        package var outcome: EventOutcome
        /// The handler's last error, for a dead event.
        package var error: String?
        /// Where report_outcomes counts it.
        package var label: OutcomeLabel

        package init(event: LoggedEvent, outcome: EventOutcome, error: String? = nil, label: OutcomeLabel? = nil) {
            self.event = event
            self.outcome = outcome
            self.error = error
            self.label = label ?? OutcomeLabel(category: nil, action: event.type.rawValue)
        }
    }

    /// An event whose handler failed and that runs again after `delay`.
    package struct Retry: Sendable {
        package var event: LoggedEvent
        package var error: String
        package var delay: Duration

        package init(event: LoggedEvent, error: String, delay: Duration) {
            self.event = event
            self.error = error
            self.delay = delay
        }
    }

    /// A claimed batch: events in position order, and the category version current at claim.
    package struct Claim: Sendable {
        package var events: [LoggedEvent]
        package var categoryVersion: Int?
        /// The database's clock at the claim: what hold windows are measured on.
        package var databaseNow: Date?
    }

    /// Locks up to `maxUsers` users in this transaction and returns about `maxEvents` of
    /// their oldest pending events, in position order.
    package static func claim(maxUsers: Int, maxEvents: Int, on connection: PostgresConnection, logger: Logger) async throws -> Claim {
        let rows = try await connection.query("""
            SELECT position, user_id, attempts, id, type, occurred_at, data, submitted_at, category_version, database_now
            FROM actiond.claim(\(maxUsers), \(maxEvents))
            """, logger: logger)
        var claim = Claim(events: [], categoryVersion: nil, databaseNow: nil)
        for try await (position, userID, attempts, id, type, occurredAt, data, submittedAt, version, now)
            in rows.decode((Int64, String, Int, String, String, Date, String, Date, Int?, Date).self) {
            // The log's check constraint admits only known types.
            let eventType = EventType(rawValue: type) ?? .notificationSent
            claim.events.append(LoggedEvent(position: position, id: id, type: eventType, userID: userID, occurredAt: occurredAt,
                                            data: data, submittedAt: submittedAt, failedAttempts: attempts))
            claim.categoryVersion = version
            claim.databaseNow = now
        }
        return claim
    }

    /// Records outcomes, schedules retries, and releases the claimed users: one round trip.
    package static func complete(finished: [Finished], retries: [Retry], claimedUsers: [String],
                                on connection: PostgresConnection, logger: Logger) async throws {
        let positions = finished.map(\.event.position)
        let users = finished.map(\.event.userID)
        let outcomes = finished.map(\.outcome.name)
        // PostgresNIO binds no arrays with nil elements: "" stands for none (nullif in SQL).
        let reasons = finished.map { $0.outcome.reason ?? "" }
        let attempts = finished.map { $0.event.failedAttempts + 1 }
        let errors = finished.map { $0.error ?? "" }
        let categories = finished.map { $0.label.category ?? "" }
        let actions = finished.map(\.label.action)
        let submitted = finished.map(\.event.submittedAt.microsecondsSince1970)
        let retryPositions = retries.map(\.event.position)
        let retryErrors = retries.map(\.error)
        let retryDelays = retries.map { Int($0.delay.components.seconds * 1000 + $0.delay.components.attoseconds / 1_000_000_000_000_000) }
        try await connection.query("""
            SELECT actiond.complete(\(positions), \(users), \(outcomes), \(reasons), \(attempts), \(errors),
                                    \(categories), \(actions), \(submitted),
                                    \(retryPositions), \(retryErrors), \(retryDelays), \(claimedUsers))
            """, logger: logger).drain()
    }

    /// Whether any event still waits for an outcome.
    package static func isEmpty(on connection: PostgresConnection, logger: Logger) async throws -> Bool {
        try await connection.query("SELECT NOT EXISTS (SELECT 1 FROM actiond.queue)", logger: logger)
            .collect().first?.decode(Bool.self) ?? true
    }

    /// Pending events and the age of the oldest, in seconds.
    package static func depth(on connection: PostgresConnection, logger: Logger) async throws -> (events: Int, oldestAgeSeconds: Double) {
        // The oldest pending event is the one with the smallest position (positions follow
        // submission), found through the primary key rather than a join of the whole backlog.
        let row = try await connection.query("""
            SELECT (SELECT count(*) FROM actiond.queue)::bigint,
                   coalesce(extract(epoch FROM now() - (SELECT e.submitted_at FROM actiond.events e
                       WHERE e.position = (SELECT min(position) FROM actiond.queue))), 0)::float8
            """, logger: logger).collect().first
        let (count, age) = try row?.decode((Int, Double).self) ?? (0, 0)
        return (count, age)
    }
}

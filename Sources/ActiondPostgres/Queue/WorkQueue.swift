import ActiondDomain
import ActiondSealing
import Foundation
import Logging
import PostgresNIO

/// The queue side of the schema (Schema/functions: claim, retry_dead, discard_dead): claiming batches,
/// dead letters, and the figures workers report.
package enum WorkQueue {
    /// A claimed batch: events in position order, the category version current at claim, and
    /// the claimed users' wrapped data keys and fences, read after the claim in its round trip.
    package struct Claim: Sendable {
        package var events: [LoggedEvent]
        package var categoryVersion: Int?
        /// The database's clock at the claim: what hold windows are measured on.
        package var databaseNow: Date?
        package var keys: [StoredDataKey] = []
        package var fences: [ForgottenUser] = []
        /// Users claimed with nothing waiting (claim's `idle`): a user whose order lock was busy
        /// when a batch emptied its queue keeps its row, and the producer holding it may have
        /// rolled back. Named among the batch's claimed users, so that its commit releases them.
        package var idleUsers: [String] = []
    }

    /// Locks up to `maxUsers` users in this transaction and returns about `maxEvents` of
    /// their oldest pending events, in position order, with those users' keys and fences
    /// (claim_batch: one round trip). With `onlyUser`, that user or none.
    package static func claim(maxUsers: Int, maxEvents: Int, onlyUser: String? = nil,
                              on connection: PostgresConnection, logger: Logger) async throws -> Claim {
        let rows = try await connection.execute(ClaimBatchStatement(maxUsers: Int64(maxUsers), maxEvents: Int64(maxEvents), onlyUser: onlyUser),
                                                logger: logger)
        var claim = Claim(events: [], categoryVersion: nil, databaseNow: nil)
        for try await (kind, position, userID, attempts, id, type, occurredAt, data, submittedAt, version, now, keyVersion, kek, wrapped, allowed) in rows {
            switch kind {
            case "event":
                guard let position, let attempts, let id, let type, let occurredAt, let data, let submittedAt, let now else {
                    throw ClaimRowIncomplete(position: position)
                }
                // The log's check constraint admits only the types this build knows; one it does
                // not (a newer build's) is an error naming it, never another type.
                claim.events.append(LoggedEvent(position: position, id: id, type: try UnknownEventType.check(type, position: position), userID: userID,
                                                occurredAt: occurredAt, data: data, submittedAt: submittedAt, failedAttempts: attempts))
                claim.categoryVersion = version
                claim.databaseNow = now
            case "idle":
                claim.idleUsers.append(userID)
            case "fence":
                claim.fences.append(ForgottenUser(userID: userID, throughVersion: keyVersion ?? 0, newKeyAllowed: allowed ?? false))
            default:
                if let keyVersion, let kek, let wrapped {
                    claim.keys.append(StoredDataKey(userID: userID, version: keyVersion, kekID: kek, wrapped: Data(wrapped.readableBytesView)))
                }
            }
        }
        // In position order, as claim returns them, whatever order claim_batch's union keeps.
        claim.events.sort { $0.position < $1.position }
        return claim
    }

    /// A claimed event's row without a column the log never leaves empty.
    package struct ClaimRowIncomplete: Error, CustomStringConvertible {
        package var position: Int64?
        package var description: String { "claim_batch returned an event row with an empty column (position \(position.map(String.init) ?? "none"))" }
    }

    /// An event without a type, read from the log. (A type no handler of this build takes is
    /// the router's to refuse, event by event: `EventRouter.MissingHandler`.)
    package struct UnknownEventType: Error, CustomStringConvertible {
        package var type: String
        package var position: Int64
        package init(type: String, position: Int64) {
            self.type = type
            self.position = position
        }
        /// The type named `name`, or this error naming it.
        package static func check(_ name: String, position: Int64) throws -> EventType {
            guard let type = EventType(rawValue: name) else { throw UnknownEventType(type: name, position: position) }
            return type
        }
        package var description: String {
            "the event at position \(position) has an empty type, which submit never accepts"
        }
    }

    /// Whether any event still waits for an outcome.
    package static func isEmpty(on connection: PostgresConnection, logger: Logger) async throws -> Bool {
        try await connection.query("SELECT actiond.queue_is_empty()", logger: logger)
            .collect().first?.decode(Bool.self) ?? true
    }

    /// Events waiting, by report_queue's statuses (queued, retrying, paused, held, stashed,
    /// dead), each with the age of its oldest in seconds.
    package static func depth(on connection: PostgresConnection, logger: Logger) async throws
        -> [(status: String, events: Int, oldestAgeSeconds: Double)] {
        var statuses: [(status: String, events: Int, oldestAgeSeconds: Double)] = []
        let rows = try await connection.query("SELECT status, events, oldest_age_seconds FROM actiond.queue_depth()", logger: logger)
        for try await (status, events, age) in rows.decode((String, Int, Double).self) {
            statuses.append((status, events, age))
        }
        return statuses
    }

    /// A producer's W3C trace context, as its event came with it (the envelope's `trace`).
    package struct TraceContext: Sendable, Hashable {
        package var traceparent: String
        package var tracestate: String?
    }

    /// The trace contexts producers sent with `events`, by position (load_trace_contexts):
    /// asked only by a worker that exports traces.
    package static func traceContexts(of events: [LoggedEvent], on connection: PostgresConnection,
                                      logger: Logger) async throws -> [Int64: TraceContext] {
        let users = Array(Set(events.map(\.userID))), positions = events.map(\.position)
        var contexts: [Int64: TraceContext] = [:]
        let rows = try await connection.query("SELECT position, traceparent, tracestate FROM actiond.load_trace_contexts(\(users), \(positions))",
                                              logger: logger)
        for try await (position, traceparent, tracestate) in rows.decode((Int64, String, String?).self) {
            contexts[position] = TraceContext(traceparent: traceparent, tracestate: tracestate)
        }
        return contexts
    }
}

import ActiondDomain
import ActiondSealing
import Foundation
import Logging
import PostgresNIO

/// Everything a worker batch writes, sent as one JSON document in one call of
/// `actiond.commit_batch` (Schema/functions/commit_batch.sql): the changed projection rows
/// and the domain events, held responses, revised outcomes, stash entries added and
/// integrated, the outcomes of finished events, retries, and the claimed users to release.
package struct BatchWrite: Sendable {
    /// An event whose outcome is final in this batch.
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

    /// The document `commit_batch` reads.
    package let document: String

    /// What `run` decided, its finished events and retries, and the users claimed; the data
    /// keys the batch made (`keys`) and the input events whose protected fields it sealed at
    /// rest (`rewrites`).
    package init(run: BatchRun, finished: [Finished], retries: [Retry], claimedUsers: [String],
                 keys: [StoredDataKey] = [], rewrites: [EventProtection.Rewrite] = []) throws {
        var json = JSONWriter(capacity: 1024 * max(1, finished.count))
        json.beginObject()
        let state = run.state

        json.key("keys"); json.beginArray()
        for key in keys {
            json.beginObject()
            json.key("user"); json.string(key.userID)
            json.key("version"); json.number(Int64(key.version))
            json.key("kek"); json.string(key.kekID)
            json.key("wrapped"); json.string(key.wrapped.base64EncodedString())
            json.endObject()
        }
        json.endArray()

        json.key("rewrites"); json.beginArray()
        for rewrite in rewrites {
            json.beginObject()
            json.key("user"); json.string(rewrite.userID)
            json.key("position"); json.number(rewrite.position)
            json.key("data")
            if let data = rewrite.data { json.raw(data) } else { json.raw("null") }
            json.endObject()
        }
        json.endArray()

        json.key("rows"); json.beginArray()
        for (key, position) in state.changed {
            guard let document = state.document(key) else { continue }
            json.beginObject()
            json.key("kind"); json.string(key.kind)
            json.key("id"); json.string(key.id)
            json.key("user"); json.string(key.userID)
            json.key("state"); json.raw(document)
            json.key("position"); json.number(position)
            json.endObject()
        }
        json.endArray()

        var recorded: [String] = []
        json.key("events"); json.beginArray()
        for appended in state.appended {
            let stream = appended.event.stream
            json.beginObject()
            json.key("position"); json.number(appended.position)
            json.key("kind"); json.string(stream.kind)
            json.key("id"); json.string(stream.id)
            json.key("user"); json.string(stream.userID)
            json.key("type"); json.string(appended.event.type)
            json.key("version"); json.number(appended.event.schemaVersion)
            json.key("data"); json.raw(appended.json)
            json.endObject()
            if stream.kind == StreamKey.notificationKind { recorded.append(stream.id) }
        }
        json.endArray()

        json.key("recorded"); json.beginArray()
        for request in recorded { json.string(request) }
        json.endArray()

        json.key("held"); json.beginArray()
        for held in run.held {
            json.beginObject()
            json.key("position"); json.number(held.event.position)
            json.key("user"); json.string(held.event.userID)
            json.key("request"); json.string(held.requestID)
            json.key("until_us"); json.number(held.until.microsecondsSince1970)
            json.endObject()
        }
        json.endArray()

        json.key("revised"); json.beginArray()
        for (key, outcome) in run.revised {
            json.beginObject()
            json.key("id"); json.string(key.id.string)
            json.key("user"); json.string(key.user.string)
            json.key("outcome"); json.string(outcome.name)
            json.key("reason"); if let reason = outcome.reason { json.string(reason) } else { json.null() }
            json.endObject()
        }
        json.endArray()

        json.key("stashed"); json.beginArray()
        for event in run.stashed {
            json.beginObject()
            json.key("position"); json.number(event.position)
            json.key("user"); json.string(event.userID)
            json.key("version"); json.number(StashPayload.currentVersion)
            json.key("payload"); json.string(try StashPayload.encode(event))
            json.endObject()
        }
        json.endArray()

        json.key("unstashed"); json.beginArray()
        for position in run.unstashed { json.number(position) }
        json.endArray()

        json.key("done"); json.beginArray()
        for item in finished {
            json.beginObject()
            json.key("position"); json.number(item.event.position)
            json.key("user"); json.string(item.event.userID)
            json.key("outcome"); json.string(item.outcome.name)
            json.key("reason"); if let reason = item.outcome.reason { json.string(reason) } else { json.null() }
            json.key("attempts"); json.number(item.event.failedAttempts + 1)
            json.key("error"); if let error = item.error { json.string(error) } else { json.null() }
            json.key("category"); if let category = item.label.category { json.string(category) } else { json.null() }
            json.key("action"); json.string(item.label.action)
            json.key("submitted_us"); json.number(item.event.submittedAt.microsecondsSince1970)
            json.endObject()
        }
        json.endArray()

        json.key("retries"); json.beginArray()
        for retry in retries {
            json.beginObject()
            json.key("position"); json.number(retry.event.position)
            json.key("user"); json.string(retry.event.userID)
            json.key("error"); json.string(retry.error)
            json.key("delay_ms"); json.number(retry.delay.components.seconds * 1000 + retry.delay.components.attoseconds / 1_000_000_000_000_000)
            json.endObject()
        }
        json.endArray()

        json.key("claimed"); json.beginArray()
        for user in claimedUsers { json.string(user) }
        json.endArray()

        json.endObject()
        document = json.text
    }

    /// Writes the batch: one round trip, in the worker's transaction. Returns the
    /// transaction's id, the `xmin` of the rows written (see `StateCache`).
    @discardableResult
    package func commit(on connection: PostgresConnection, logger: Logger) async throws -> Int64 {
        var transaction: Int64 = 0
        for try await id in try await connection.execute(CommitBatchStatement(document: document), logger: logger) { transaction = id }
        return transaction
    }
}

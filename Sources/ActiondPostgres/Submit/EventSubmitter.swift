import Logging
import PostgresNIO

/// Submits events (JSON text, one event each) through `actiond.submit_many`, one statement
/// per batch. Validation and idempotency live in the SQL function, so every producer, in any
/// language, gets the same rules.
package struct EventSubmitter: Sendable {
    let client: PostgresClient
    let logger: Logger

    package init(client: PostgresClient, logger: Logger) {
        self.client = client
        self.logger = logger
    }

    /// One result per input, in input order, from `connections` statements run at once: the
    /// events are split by user (`UserPartition`), so each user's events are submitted in
    /// input order by one statement, and the statements lock disjoint sets of users. One
    /// difference from a single statement: when one id comes with two different users in the
    /// same call, one is stored and the other refused (23505), but which one is not defined.
    package func submit(_ events: [String], connections: Int) async throws -> [SubmitResult] {
        guard connections > 1 && events.count > 1 else { return try await submit(events) }
        let partition = UserPartition(count: connections)
        var parts = [[Int]](repeating: [], count: connections)
        for (index, event) in events.enumerated() { parts[partition.index(of: event)].append(index) }
        var results = [SubmitResult?](repeating: nil, count: events.count)
        try await withThrowingTaskGroup(of: ([Int], [SubmitResult]).self) { group in
            for part in parts where !part.isEmpty {
                group.addTask { (part, try await submit(part.map { events[$0] })) }
            }
            for try await (part, partResults) in group {
                for (index, result) in zip(part, partResults) { results[index] = result }
            }
        }
        return results.map { $0! }
    }

    /// One result per input, in input order. Accepted and duplicate inputs are committed
    /// when this returns; refused ones stored nothing.
    package func submit(_ events: [String]) async throws -> [SubmitResult] {
        guard !events.isEmpty else { return [] }
        do {
            return try await submitBatch(events)
        } catch let error as PSQLError where Self.isUnparsableInput(error) {
            // Some line is not JSON PostgreSQL accepts, which fails the whole statement.
            // Rare, so find it by submitting this batch's lines one by one.
            var results: [SubmitResult] = []
            results.reserveCapacity(events.count)
            for event in events {
                do {
                    results.append(contentsOf: try await submitBatch([event]))
                } catch let error as PSQLError where Self.isUnparsableInput(error) {
                    results.append(SubmitResult(
                        status: .refused, errorCode: error.serverInfo?[.sqlState],
                        // PostgreSQL's message only: its DETAIL and CONTEXT quote the input.
                        message: "event: not valid JSON: \(error.serverInfo?[.message] ?? "unparsable")"))
                }
            }
            return results
        }
    }

    /// One statement; retried when PostgreSQL ends it as a deadlock or serialization failure
    /// (two batches holding the same new ids in opposite orders). Nothing of a failed attempt
    /// was stored, and a retry is idempotent.
    private func submitBatch(_ events: [String]) async throws -> [SubmitResult] {
        var attempt = 1
        while true {
            do {
                return try await submitBatchOnce(events)
            } catch let error as PSQLError where attempt < 5 && [.deadlockDetected, .serializationFailure].contains(error.sqlState) {
                logger.notice("submit batch retried after a deadlock", metadata: ["attempt": "\(attempt)"])
                try await Task.sleep(for: .milliseconds(Int.random(in: 5...50) * attempt))
                attempt += 1
            }
        }
    }

    private func submitBatchOnce(_ events: [String]) async throws -> [SubmitResult] {
        let rows = try await client.query(
            "SELECT status, position, error_code, error_message FROM actiond.submit_many(\(events)::text[]::jsonb[])",
            logger: logger)
        var results: [SubmitResult] = []
        results.reserveCapacity(events.count)
        for try await (status, position, code, message) in rows.decode((String, Int64?, String?, String?).self) {
            results.append(SubmitResult(status: SubmitResult.Status(rawValue: status) ?? .refused,
                                        position: position, errorCode: code, message: message))
        }
        return results
    }

    /// invalid_text_representation (not JSON) or untranslatable_character (\u0000 in jsonb).
    static func isUnparsableInput(_ error: PSQLError) -> Bool {
        error.sqlState == .invalidTextRepresentation || error.sqlState == .untranslatableCharacter
    }
}

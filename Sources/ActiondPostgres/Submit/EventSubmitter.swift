import ActiondDomain
import Logging
import PostgresNIO
import Synchronization

/// Submits events (JSON text, one event each) through `actiond.submit_many`, one statement
/// per batch. Validation and idempotency live in the SQL function, so every producer, in any
/// language, gets the same rules.
package struct EventSubmitter: Sendable {
    let client: PostgresClient
    let logger: Logger
    /// Whether the database turned out to have no shard groups (plain PostgreSQL).
    private let layout = SubmitLayout()

    package init(client: PostgresClient, logger: Logger) {
        self.client = client
        self.logger = logger
    }

    /// One result per input, in input order, from at most `connections` statements run at
    /// once. The events are split by user, so each user's events are submitted in input order
    /// by one statement, and the statements lock disjoint sets of users:
    /// - on Citus, by shard group (`actiond.shard_groups`): each statement's users live on one
    ///   node, so it writes that node alone, instead of a statement over every shard writing
    ///   every node;
    /// - on plain PostgreSQL, into `connections` parts by a hash of the user (`UserPartition`).
    /// One difference from a single statement: when one id comes with two different users in
    /// the same call, one is stored and the other refused (23505), but which one is not defined.
    package func submit(_ events: [String], connections: Int) async throws -> [SubmitResult] {
        guard !events.isEmpty else { return [] }
        let parts: [[Int]]
        if let groups = try await shardGroups(events) {
            parts = groups
        } else if connections > 1 && events.count > 1 {
            let partition = UserPartition(count: connections)
            var split = [[Int]](repeating: [], count: connections)
            for (index, event) in events.enumerated() { split[partition.index(of: event)].append(index) }
            parts = split.filter { !$0.isEmpty }
        } else {
            return try await submit(events)
        }
        var results = [SubmitResult?](repeating: nil, count: events.count)
        try await withThrowingTaskGroup(of: ([Int], [SubmitResult]).self) { group in
            var pending = parts[...]
            func start() {
                guard let part = pending.popFirst() else { return }
                group.addTask { (part, try await submit(part.map { events[$0] })) }
            }
            for _ in 0..<max(1, connections) { start() }
            for try await (part, partResults) in group {
                for (index, result) in zip(part, partResults) { results[index] = result }
                start()
            }
        }
        return results.map { $0! }
    }

    /// The events' indices grouped by the Citus shard group of their user, in order of first
    /// appearance (events without a readable user id form a group of their own, which the
    /// function refuses event by event); nil on plain PostgreSQL, remembered after the first ask.
    private func shardGroups(_ events: [String]) async throws -> [[Int]]? {
        if layout.isPlain { return nil }
        // An id PostgreSQL's text cannot hold (a NUL) is not asked about: its line goes in the
        // group of lines without a readable user, and submit_many refuses it alone.
        let users = events.map { UserPartition.userID(in: $0).flatMap { $0.utf8.contains(0) ? nil : $0 } }
        var distinct: [String] = []
        var seen = Set<ExactString>()
        for case let user? in users where seen.insert(ExactString(user)).inserted { distinct.append(user) }
        var shardOf: [ExactString: Int64] = [:]
        let rows = try await client.query("SELECT user_id, shard_id FROM actiond.shard_groups(\(distinct))", logger: logger)
        for try await (user, shard) in rows.decode((String, Int64).self) { shardOf[ExactString(user)] = shard }
        if shardOf.isEmpty && !distinct.isEmpty {
            layout.isPlain = true
            return nil
        }
        var groups: [[Int]] = []
        var groupOf: [Int64?: Int] = [:]
        for (index, user) in users.enumerated() {
            let shard = user.flatMap { shardOf[ExactString($0)] }
            if let existing = groupOf[shard] {
                groups[existing].append(index)
            } else {
                groupOf[shard] = groups.count
                groups.append([index])
            }
        }
        return groups
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

    /// In a transaction of its own, ended by COMMIT (`committed`): answered once the events
    /// are committed, never before (the chaos soak met a crash between the two).
    private func submitBatchOnce(_ events: [String]) async throws -> [SubmitResult] {
        try await client.committed(logger: logger) { connection in
            let rows = try await connection.query(
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
    }

    /// invalid_text_representation (not JSON) or untranslatable_character (\u0000 in jsonb).
    static func isUnparsableInput(_ error: PSQLError) -> Bool {
        error.sqlState == .invalidTextRepresentation || error.sqlState == .untranslatableCharacter
    }
}

/// What an `EventSubmitter` learned about its database's layout.
private final class SubmitLayout: Sendable {
    private let plain = Atomic<Bool>(false)
    var isPlain: Bool {
        get { plain.load(ordering: .relaxed) }
        set { plain.store(newValue, ordering: .relaxed) }
    }
}

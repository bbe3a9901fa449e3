import ActiondPostgres
import ActiondRuntime
import Foundation
import PostgresNIO

/// bulk_submit and single_submit.
enum SubmitPhases {
    /// JSON Lines through `EventSubmitter` in batches of 1,000, `submitConnections` statements
    /// at once split by user: what `actiond submit` does with its defaults.
    static func bulk(_ bench: Benchmark, client: PostgresClient) async throws -> BenchResult.Rate {
        let lines = bench.workload(bench.configuration.submitEvents, users: max(bench.configuration.users, bench.configuration.submitEvents / 18), runID: "b")
        let submitter = EventSubmitter(client: client, logger: bench.logger)
        let clock = ContinuousClock()
        let start = clock.now
        var accepted = 0
        let connections = bench.configuration.submitConnections, round = 1000 * connections
        for offset in stride(from: 0, to: lines.count, by: round) {
            let results = try await submitter.submit(Array(lines[offset..<min(offset + round, lines.count)]), connections: connections)
            accepted += results.filter { $0.status == .accepted }.count
        }
        let seconds = Benchmark.seconds(start.duration(to: clock.now))
        guard accepted == lines.count else { throw BenchError("bulk_submit: \(lines.count - accepted) events were not accepted") }
        return BenchResult.Rate(events: accepted, seconds: seconds, events_per_second: Double(accepted) / seconds)
    }

    /// One `actiond.submit()` call (its own transaction, prepared once per connection:
    /// `SubmitOneStatement`) per event, from several connections;
    /// a user's events always go through the same connection, in order.
    static func single(_ bench: Benchmark, client: PostgresClient) async throws -> BenchResult.Rate {
        let lines = bench.workload(bench.configuration.singleEvents, users: max(64, bench.configuration.singleEvents / 18), runID: "s")
        let connections = bench.configuration.singleConnections
        var parts = [[String]](repeating: [], count: connections)
        for line in lines { parts[connection(of: line, among: connections)].append(line) }
        let clock = ContinuousClock()
        let start = clock.now
        try await produce(parts, client: client) { connection, line in
            for try await _ in try await connection.execute(SubmitOneStatement(event: line), logger: bench.logger) {}
        }
        let seconds = Benchmark.seconds(start.duration(to: clock.now))
        return BenchResult.Rate(events: lines.count, seconds: seconds, events_per_second: Double(lines.count) / seconds)
    }
}

extension SubmitPhases {
    /// Runs `submit` for each item of each part, a part's items in order on a connection of
    /// its own, the parts at once: the producers of single_submit and of the latency phase.
    /// Each producer's task runs on its connection's event loop (`EventLoopTaskExecutor`), so
    /// an answer resumes it on the thread that read it: a producer stands in for an app's API
    /// on another machine, and should take as little as it can of the two cores the server
    /// measured shares with it (measured: about 100 µs of CPU per submit on the global pool).
    static func produce<Item: Sendable>(
        _ parts: [[Item]], client: PostgresClient,
        _ submit: @escaping @Sendable (PostgresConnection, Item) async throws -> Void
    ) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for part in parts {
                group.addTask {
                    try await client.withConnection { connection in
                        try await withTaskExecutorPreference(EventLoopTaskExecutor(connection.eventLoop)) {
                            for item in part { try await submit(connection, item) }
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
    }

    /// Which of `connections` submits a workload line: its user's, so that a user's events
    /// go through one connection, in order. (The user id is the fourth string of each line.)
    static func connection(of line: String, among connections: Int) -> Int {
        let user = line.split(separator: "\"", maxSplits: 12)[11]
        return abs(user.hashValue) % connections
    }
}

struct BenchError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

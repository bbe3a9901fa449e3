import ActiondPostgres
import PostgresNIO

extension TestDatabase {
    /// Submits each line through `actiond.submit` (the one-event path, as a producer's SQL
    /// does), one statement each, in order; a refused line throws.
    package func submitEach(_ lines: [String]) async throws {
        for line in lines { try await client.query("SELECT actiond.submit(\(line)::jsonb)", logger: logger).drain() }
    }

    /// Submits the lines through `submit_many` (`EventSubmitter`, a thousand a call, as
    /// `actiond submit` does); throws unless every line is accepted.
    package func submitAccepted(_ lines: [String]) async throws {
        let submitter = EventSubmitter(client: client, logger: logger)
        for start in stride(from: 0, to: lines.count, by: 1000) {
            let results = try await submitter.submit(Array(lines[start..<min(start + 1000, lines.count)]))
            let refused = results.filter { $0.status != .accepted }
            guard refused.isEmpty else { throw TestDatabaseError("test events must be accepted: \(refused)") }
        }
    }
}

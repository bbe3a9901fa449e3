import PostgresNIO

extension PostgresRowSequence {
    /// Consumes every row. Used for statements run for their effect: asking for the command
    /// tag before the rows are consumed stops the process (postgres-nio 1.33).
    package func drain() async throws {
        for try await _ in self {}
    }
}

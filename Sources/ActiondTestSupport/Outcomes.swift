import PostgresNIO

extension TestDatabase {
    /// Each decided event's outcome by its id (`applied`, `rejected:reason`, `superseded`,
    /// `stashed`, `dead`), for the events of `user` (or everyone's): the one query every test
    /// reads outcomes with (a team's, through `ActiondTestDatabase.outcomes`). An event no
    /// worker has decided yet is not in it.
    package func outcomes(user: String? = nil) async throws -> [String: String] {
        let rows = try await client.query("""
            SELECT e.id, o.outcome || coalesce(':' || o.reason, '') FROM actiond.events e
            JOIN actiond.outcomes o ON o.user_id = e.user_id AND o.position = e.position
            WHERE \(user)::text IS NULL OR e.user_id = \(user)
            """, logger: logger)
        var outcomes: [String: String] = [:]
        for try await (id, outcome) in rows.decode((String, String).self) { outcomes[id] = outcome }
        return outcomes
    }
}

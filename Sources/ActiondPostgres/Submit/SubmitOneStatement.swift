import PostgresNIO

/// `actiond.submit(event)`, one event in a transaction of its own, prepared once per
/// connection: what a producer that submits each response as it arrives should send.
/// PostgreSQL then parses and plans the call once per session instead of on every event,
/// as drivers that cache prepared statements (pgx, JDBC, asyncpg) do by default. Its one
/// row is `submit`'s answer, `{"status":"accepted"|"duplicate","position":N}`; a refused
/// event throws the function's error (class 22 or 23, naming the field). PostgresNIO hands
/// the row over before the implicit commit of a statement run on its own: where the answer
/// must mean "committed", run it between BEGIN and COMMIT and take it once COMMIT returned
/// (the bench's producers measure throughput, and do not).
package struct SubmitOneStatement: PostgresPreparedStatement {
    package static let sql = "SELECT actiond.submit($1::text::jsonb)::text"
    package typealias Row = String

    /// The event: one JSON envelope.
    package var event: String

    package init(event: String) { self.event = event }

    package func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 1)
        bindings.append(event)
        return bindings
    }

    package func decodeRow(_ row: PostgresRow) throws -> Row { try row.decode(Row.self) }
}

import ActiondPostgres
import Logging
import PostgresNIO

/// How a producer's event reaches the log: `actiond.submit(event jsonb)` (the one-event path,
/// statements of its own) or `actiond.submit_many(events jsonb[])` (the batch path that
/// `actiond submit` uses), the first also prepared. The rule tests run through each.
package enum SubmitPath: String, CaseIterable, Sendable, CustomStringConvertible {
    case oneEvent = "submit"
    /// `submit` prepared once per connection (`SubmitOneStatement`), as the bench's producers
    /// and drivers that cache statements call it.
    case prepared = "submit, prepared"
    case batch = "submit_many"

    package var description: String { rawValue }
}

/// What a submit answered: its JSON (`{"status": …, "position": N}`), or the refusal's
/// SQLSTATE and message (an error from `submit`, a refused row from `submit_many`).
package enum SubmitAnswer: Equatable, Sendable {
    case result(String)
    case error(sqlState: SQLState, message: String)

    package var sqlState: SQLState? { if case .error(let state, _) = self { state } else { nil } }
    package var message: String? { if case .error(_, let message) = self { message } else { nil } }
}

extension SubmitPath {
    /// Submits one event (JSON text) through this path on `connection`, in the caller's
    /// transaction if one is open, else in a statement of its own; submit_many's row is read
    /// as submit answers.
    package func submit(_ json: String, on connection: PostgresConnection, logger: Logger) async throws -> SubmitAnswer {
        do {
            switch self {
            case .oneEvent:
                let rows = try await connection.query("SELECT actiond.submit(\(json)::jsonb)::text", logger: logger).collect()
                guard rows.count == 1, let row = rows.first else { return .error(sqlState: "?", message: "\(rows.count) rows") }
                return .result(try row.decode(String.self))
            case .prepared:
                var answers: [String] = []
                for try await answer in try await connection.execute(SubmitOneStatement(event: json), logger: logger) { answers.append(answer) }
                guard answers.count == 1 else { return .error(sqlState: "?", message: "\(answers.count) rows") }
                return .result(answers[0])
            case .batch:
                let rows = try await connection.query(
                    "SELECT status, position, error_code, error_message FROM actiond.submit_many(ARRAY[\(json)::jsonb])", logger: logger)
                    .collect()
                guard rows.count == 1, let row = rows.first else { return .error(sqlState: "?", message: "\(rows.count) rows") }
                let (status, position, code, message) = try row.decode((String, Int?, String?, String?).self)
                if status == "refused" { return .error(sqlState: SQLState(rawValue: code ?? "?"), message: message ?? "") }
                return .result(#"{"status": "\#(status)", "position": \#(position ?? 0)}"#)
            }
        } catch let error as PSQLError {
            return .error(sqlState: error.sqlState ?? "?", message: error.serverInfo?[.message] ?? "")
        }
    }
}

extension TestDatabase {
    /// Submits one event (JSON text) through `path`, in a transaction of its own.
    package func submit(_ json: String, via path: SubmitPath) async throws -> SubmitAnswer {
        try await client.withConnection { connection in try await path.submit(json, on: connection, logger: logger) }
    }
}

import Foundation
import Logging
import PostgresNIO

/// The console's database side: every page reads through the `console_*` functions and the
/// report views as `actiond_reader`, and every action goes through the `console_*` operator
/// functions as `actiond_operator` (each audited in `actiond.console_audit`). The login the
/// console connects with needs both roles granted; `SET LOCAL ROLE` confines each
/// transaction to one of them, so a page can never write and an action can do nothing but
/// what its function does.
package struct ConsoleStore: Sendable {
    /// Which of actiond's roles a transaction runs as.
    package enum Role: String, Sendable {
        case reader = "actiond_reader"
        case `operator` = "actiond_operator"
    }

    package let client: PostgresClient
    package let logger: Logger

    package init(client: PostgresClient, logger: Logger) {
        self.client = client
        self.logger = logger
    }

    /// The rows of `query` (which must select one `to_jsonb` column), run as `role`.
    package func records(_ query: PostgresQuery, as role: Role) async throws -> [ConsoleRecord] {
        try await rows(query, as: role).map { try ConsoleRecord(json: try $0.decode(String.self)) }
    }

    /// One value (the first column of the first row) of `query`, run as `role`.
    package func value<Value: PostgresDecodable & Sendable>(_ query: PostgresQuery, as role: Role, of type: Value.Type) async throws -> Value?
    where Value._DecodableType == Value {
        try await rows(query, as: role).first?.decode(Value?.self) ?? nil
    }

    /// The rows of `query`, in a transaction of its own confined to `role` (`SET LOCAL ROLE`).
    /// Every console query returns one page or one value: collecting them is bounded.
    private func rows(_ query: PostgresQuery, as role: Role) async throws -> [PostgresRow] {
        try await client.withConnection { connection in
            try await connection.transaction(logger: logger) { connection in
                // The role's name is one of two constants, never input.
                try await connection.query(PostgresQuery(unsafeSQL: "SET LOCAL ROLE \(role.rawValue)"), logger: logger)
                return try await connection.query(query, logger: logger).collect()
            }
        }
    }
}

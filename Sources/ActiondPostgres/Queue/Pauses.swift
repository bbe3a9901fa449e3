import Logging
import PostgresNIO

/// `actiond pause` / `actiond resume` (docs/contract.md, "Operating"): the SQL functions
/// `actiond.pause(user_id)` and `actiond.resume(user_id)`, nil meaning everyone, and
/// `actiond.pause_category(category)` and `actiond.resume_category(category)`.
package enum Pauses {
    /// Pauses everyone (nil) or one user; false when that pause was already in place.
    package static func pause(user: String?, client: PostgresClient, logger: Logger) async throws -> Bool {
        try await client.committed(logger: logger) { connection in
            try await connection.query("SELECT actiond.pause(\(user))", logger: logger).collect().first?.decode(Bool.self) ?? false
        }
    }

    /// Ends every pause (nil) or one user's; returns how many ended.
    package static func resume(user: String?, client: PostgresClient, logger: Logger) async throws -> Int {
        try await client.committed(logger: logger) { connection in
            try await connection.query("SELECT actiond.resume(\(user))", logger: logger).collect().first?.decode(Int.self) ?? 0
        }
    }

    /// Pauses one category; false when it was already paused. An unregistered or empty
    /// category is refused (22023, naming the field).
    package static func pause(category: String, client: PostgresClient, logger: Logger) async throws -> Bool {
        try await client.committed(logger: logger) { connection in
            try await connection.query("SELECT actiond.pause_category(\(category))", logger: logger).collect().first?.decode(Bool.self) ?? false
        }
    }

    /// Ends one category's pause; returns how many ended (0 or 1).
    package static func resume(category: String, client: PostgresClient, logger: Logger) async throws -> Int {
        try await client.committed(logger: logger) { connection in
            try await connection.query("SELECT actiond.resume_category(\(category))", logger: logger).collect().first?.decode(Int.self) ?? 0
        }
    }

    /// Whether everyone is paused, and how many users are paused one by one.
    package static func state(client: PostgresClient, logger: Logger) async throws -> (everyone: Bool, users: Int) {
        let row = try await client.query(
            "SELECT coalesce(bool_or(user_id = ''), false), count(*) FILTER (WHERE user_id <> '') FROM actiond.pauses",
            logger: logger).collect().first
        return try row?.decode((Bool, Int).self) ?? (false, 0)
    }
}

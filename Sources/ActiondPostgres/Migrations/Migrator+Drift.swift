import Logging
import PostgresNIO

/// Drift: a function or view changed, dropped or added by hand since migrate applied this
/// build's definitions (018_live_definitions.sql, `live_definitions`, `schema_drift`).
extension Migrator {
    /// The drift, one line per object (`function actiond.claim(…) (changed)`).
    static let driftQuery = "SELECT object || ' (' || change || ')' FROM actiond.schema_drift()"

    /// What drift is measured against: every function's and view's live definition as this
    /// run left it, recorded when the run `changed` any (or none is recorded yet).
    func recordDefinitions(changed: Bool, on connection: PostgresConnection) async throws {
        if !changed {
            let recorded = try await connection.query("SELECT EXISTS (SELECT FROM actiond.schema_definitions)", logger: logger)
                .collect().first?.decode(Bool.self) ?? false
            if recorded { return }
        }
        try await connection.transaction(logger: logger) { connection in
            try await connection.query("DELETE FROM actiond.schema_definitions", logger: logger).drain()
            try await connection.query("INSERT INTO actiond.schema_definitions (object, hash) SELECT object, hash FROM actiond.live_definitions()",
                                       logger: logger).drain()
        }
    }

    /// The functions and views whose live definition differs from what migrate last applied
    /// (`schema_drift`), one line each (`function actiond.claim(…) (changed)`); empty when the
    /// database runs exactly that. Throws `notMigrated` for a database migrate has not
    /// brought to this build (checkCurrent says why).
    package func drift() async throws -> [String] {
        do {
            return try await client.query(PostgresQuery(unsafeSQL: Self.driftQuery), logger: logger)
                .collect().map { try $0.decode(String.self) }
        } catch let error as PSQLError where [.invalidSchemaName, .undefinedFunction, .undefinedTable].contains(error.sqlState) {
            try await checkCurrent()
            throw error
        }
    }
}

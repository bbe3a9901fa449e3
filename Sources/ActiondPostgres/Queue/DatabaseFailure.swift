import PostgresNIO

/// Whose fault a database error in a worker batch is. An error about the data some user's
/// events carry (a value PostgreSQL refuses, a constraint or an operator's trigger that
/// raises, a value too large for an index) belongs to that user: the worker finds the event,
/// counts an attempt against it, and dead-letters it after the last. Anything else (schema
/// missing or changed, permissions, a read-only or full server, the connection, deadlocks and
/// timeouts) is systemic: retried after a pause, never counted against an event.
package enum DatabaseFailure {
    /// SQLSTATE classes about data: cardinality (21), data exception (22), integrity
    /// constraint (23), WITH CHECK OPTION (44), program limit such as an index row too large
    /// (54), errors raised by PL/pgSQL or other routines (P0, 2F, 38, 39).
    static let dataClasses: Set<Substring> = ["21", "22", "23", "44", "54", "P0", "2F", "38", "39"]

    /// Whether `error` is PostgreSQL's refusal of some event's data.
    package static func isAboutData(_ error: any Error) -> Bool {
        guard let code = (error as? PSQLError)?.sqlState else { return false }
        return dataClasses.contains(code.errorClass)
    }

    /// Whether `error` says the schema or a privilege is wrong (SQLSTATE classes 42, such as
    /// 42501 permission denied or 42883 no such function, and 3F, no such schema): it will
    /// not pass by itself, so it is worth an operator's attention.
    package static func isAboutSchemaOrPrivileges(_ error: any Error) -> Bool {
        guard let code = (error as? PSQLError)?.sqlState else { return false }
        return code.errorClass == "42" || code.errorClass == "3F"
    }

    /// PostgreSQL's code and message, for logs and dead letters. Never its detail, which may
    /// quote the values of a row (protected text), nor the query and its bindings, which
    /// `String(reflecting:)` of a `PSQLError` prints; a client-side error (the connection)
    /// is named by its code and cause.
    package static func describe(_ error: any Error) -> String {
        guard let error = error as? PSQLError else { return String(describing: error) }
        if let info = error.serverInfo {
            return "\(info[.sqlState] ?? "?????"): \(info[.message] ?? "")"
        }
        return "\(error.code)" + (error.underlying.map { ": \($0)" } ?? "")
    }
}
